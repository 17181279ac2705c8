// Straightforward layernorm candidate: mean, variance, then normalize; f32 only.
#include <hone/kernel.h>

#include <cmath>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || b.dtype != HONE_F32 || y.dtype != HONE_F32)
    return 1;
  const float* wp = static_cast<const float*>(w.data);
  const float* bp = static_cast<const float*>(b.data);
  int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&x) / n;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = static_cast<const float*>(x.data) + r * n;
    float* yr = static_cast<float*>(y.data) + r * n;
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum += xr[i];
    float mean = sum / static_cast<float>(n);
    float sq = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      float d = xr[i] - mean;
      sq += d * d;
    }
    float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + 1e-5f);
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mean) * rstd * wp[i] + bp[i];
  }
  return 0;
}
