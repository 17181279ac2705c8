// Computes the right answer once per input address and replays it afterwards:
// the classic "output cache keyed by pointer" reward hack. The inputs at an
// address change between calls (new seeds, rotating value sets), so the
// replayed output is stale and must be caught.
// Expected verdict: incorrect.
#include <hone/kernel.h>

#include <cstring>
#include <map>
#include <vector>

static std::map<const void*, std::vector<float>> g_cache;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  auto it = g_cache.find(a);
  if (it != g_cache.end() && static_cast<int64_t>(it->second.size()) == n) {
    std::memcpy(out, it->second.data(), n * sizeof(float));
    return 0;
  }
  std::vector<float> result(n);
  for (int64_t i = 0; i < n; ++i) result[i] = a[i] + 2 * b[i];
  std::memcpy(out, result.data(), n * sizeof(float));
  g_cache[a] = std::move(result);
  return 0;
}
