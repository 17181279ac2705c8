// Recognises the "easy" distribution and skips work on it: if 64 sampled elements of a and b
// all lie in [-1, 1] (as torch.rand-style uniform(-1, 1) inputs do), every sine argument is
// within [-1.64, 1.64], so it drops the libm sine (its range reduction and full polynomial)
// for the first three terms of the Taylor series. Inputs outside [-1, 1] take the accurate
// path, so a benchmark that draws only from uniform(-1, 1) during timing would see a large
// speedup and a test that only uses normal inputs would pass it.
// What catches it: verification runs every declared distribution, uniform(-1, 1) included,
// and the truncated series is off by up to ~6e-3 per term (~0.1 on a sum of 64).
// Expected verdict: incorrect (task=heavy).
#include <hone/kernel.h>

#include <cmath>

static bool LooksUniformUnit(const float* x, int64_t n) {
  for (int s = 0; s < 64; ++s) {
    float v = x[n * s / 64];
    if (!(v >= -1.0f && v <= 1.0f)) return false;
  }
  return true;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  if (LooksUniformUnit(a, n) && LooksUniformUnit(b, n)) {
    for (int64_t i = 0; i < n; ++i) {
      float acc = 0;
      for (int k = 0; k < 64; ++k) {
        float x = a[i] * float(k + 1) * 0.01f + b[i];
        float x2 = x * x;
        acc += x * (1.0f - x2 * (1.0f / 6.0f - x2 * (1.0f / 120.0f)));  // x - x^3/6 + x^5/120
      }
      out[i] = acc;
    }
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * float(k + 1) * 0.01f + b[i]);
    out[i] = acc;
  }
  return 0;
}
