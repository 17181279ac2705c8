// Computes in bfloat16: rounds a and b to bf16 by bit manipulation (keep the top 16 bits of the
// float, rounding to nearest even), evaluates a + 2 * b, rounds the result to bf16 the same way
// and stores it widened back to float ("bf16 is what the tensor cores use anyway"). bf16
// keeps 8 significant bits: a relative error of up to 3.9e-3 per rounding.
// What catches it: the f32 tolerance and the float64 precision check.
// Expected verdict: incorrect.
#include <hone/kernel.h>

#include <cstring>

static float RoundBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even on the low 16 bits
  u &= 0xFFFF0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = RoundBf16(RoundBf16(a[i]) + 2.0f * RoundBf16(b[i]));
  return 0;
}
