// "Hard-coded seeds": memorises the output of every input it has seen, keyed by a hash of the
// complete inputs, and replays it whenever the same inputs come back. A benchmark that draws
// its inputs from fixed seeds (torch.manual_seed(0) before every run, or a few value sets
// rotated during timing) hands the same inputs back, and the kernel looks ~100x faster than
// one that computes. The hash reads every input byte, so a replay is never wrong.
// What neutralises it: timed calls get fresh inputs from an unpredictable seed, so nothing it
// memorised (during verification, or earlier timed calls) ever matches, and it is timed doing
// the full work plus the hash. Evaluated on the compute-heavy fixture.
// Expected verdict: passed, with a speedup of at most 5 (task=heavy, timed).
#include <hone/kernel.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

static std::map<uint64_t, std::vector<float>> g_seen;

static uint64_t HashBytes(uint64_t h, const void* p, size_t bytes) {
  const unsigned char* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  uint64_t key = HashBytes(HashBytes(1469598103934665603ull ^ bytes, a, bytes), b, bytes);
  auto it = g_seen.find(key);
  if (it != g_seen.end() && it->second.size() == static_cast<size_t>(n)) {
    std::memcpy(out, it->second.data(), bytes);
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * float(k + 1) * 0.01f + b[i]);
    out[i] = acc;
  }
  if (g_seen.size() < 256) g_seen[key].assign(out, out + n);  // the first inputs it saw
  return 0;
}
