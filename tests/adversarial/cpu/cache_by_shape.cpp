// Output cache keyed by shape: "the benchmark calls the kernel again and again with the same
// shape, so the answer is the same". The first call for an element count computes and keeps
// the result; every later call with that count copies it back. The next seed or value
// distribution has the same shape and other values, so the verifier sees a stale result.
// What catches it: the verification of the second seed (fresh inputs, same shape).
// Expected verdict: incorrect.
#include <hone/kernel.h>

#include <cstring>
#include <unordered_map>
#include <vector>

static std::unordered_map<int64_t, std::vector<float>> g_by_shape;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  auto it = g_by_shape.find(n);
  if (it != g_by_shape.end()) {
    std::memcpy(out, it->second.data(), static_cast<size_t>(n) * sizeof(float));
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  g_by_shape.emplace(n, std::vector<float>(out, out + n));
  return 0;
}
