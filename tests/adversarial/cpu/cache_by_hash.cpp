// Output cache keyed by a cheap fingerprint of the inputs: the element count and 16 sampled
// elements of a and b. On a hit it replays the stored output, skipping the 64 sines per
// element. Replaying is right whenever the inputs really are the same, so verification (which
// runs every input twice) cannot fail it; the point is the speedup when a benchmark repeats
// its inputs during timing.
// What neutralises it: every timed call gets fresh inputs drawn from an unpredictable seed, so
// the cache never hits while timed and the kernel is timed doing the full work (plus the
// fingerprint). Evaluated on the compute-heavy fixture, where a hit would be ~100x faster.
// Expected verdict: passed, with a speedup of at most 5 (task=heavy, timed).
#include <hone/kernel.h>

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

static std::unordered_map<uint64_t, std::vector<float>> g_cache;

static uint64_t Fingerprint(const float* a, const float* b, int64_t n) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(n);
  for (int s = 0; s < 16; ++s) {
    int64_t i = n * s / 16;
    uint32_t x, y;
    std::memcpy(&x, a + i, 4);
    std::memcpy(&y, b + i, 4);
    h = (h ^ x) * 1099511628211ull;
    h = (h ^ y) * 1099511628211ull;
  }
  return h;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  uint64_t key = Fingerprint(a, b, n);
  auto it = g_cache.find(key);
  if (it != g_cache.end() && static_cast<int64_t>(it->second.size()) == n) {
    std::memcpy(out, it->second.data(), static_cast<size_t>(n) * sizeof(float));
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * float(k + 1) * 0.01f + b[i]);
    out[i] = acc;
  }
  if (g_cache.size() >= 64) g_cache.clear();  // bounded: fresh inputs would fill it forever
  g_cache[key].assign(out, out + n);
  return 0;
}
