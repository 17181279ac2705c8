// Within tolerance on every call, but the last bit of its first output
// element alternates from one call to the next, as a race in the order of a
// float reduction would make it. Expected verdict: passed, with a
// "deterministic" check that says the two runs on one value set differ
// bitwise (a note, not a failure).
#include <hone/kernel.h>

#include <cstring>

HONE_EXPORT int hone_forward(const hone_args* args) {
  static unsigned calls = 0;
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  unsigned bits;
  std::memcpy(&bits, &out[0], sizeof bits);
  bits ^= (calls++ & 1u);
  std::memcpy(&out[0], &bits, sizeof bits);
  return 0;
}
