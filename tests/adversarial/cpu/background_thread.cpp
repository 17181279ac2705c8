// Computes the right answer, then leaves a detached thread running after
// hone_forward returns: work that escapes the measured call. The worker reads
// the sandbox's CPU time while it should be idle and sees the thread.
// Expected verdict: rejected.
#include <hone/kernel.h>

#include <chrono>
#include <thread>

static void Burn() {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  volatile double x = 1;
  while (std::chrono::steady_clock::now() < end) x = x * 1.0000001 + 1e-9;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2 * b[i];
  static bool started = false;
  if (!started) {
    started = true;
    std::thread(Burn).detach();
  }
  return 0;
}
