// Honest parallelism through a thread API: splits out = a + 2 * b into one slice per core,
// runs each slice on a std::thread and joins them all before returning. No work escapes the
// call, and the result is right.
// What catches it: nothing at run time (the sandbox allows threads: OpenMP needs them, and the
// idle-CPU check finds none left running). The static lint's 'host-thread' rule rejects raw
// thread APIs in a CPU candidate, where OpenMP is the sanctioned way to use the cores (its
// threads are hone's to configure and are known to sleep between calls).
// Expected verdict: rejected (lint 'host-thread'); dynamic: passed.
#include <hone/kernel.h>

#include <algorithm>
#include <thread>
#include <vector>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  int64_t workers = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 8);
  int64_t chunk = (n + workers - 1) / workers;
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < workers; ++w)
    pool.emplace_back([=] {
      int64_t end = std::min(n, (w + 1) * chunk);
      for (int64_t i = w * chunk; i < end; ++i) out[i] = a[i] + 2.0f * b[i];
    });
  for (auto& t : pool) t.join();
  return 0;
}
