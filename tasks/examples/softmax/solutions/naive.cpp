// Straightforward softmax candidate: max, exp and sum, then normalize; f32 only.
#include <hone/kernel.h>

#include <cmath>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&x) / n;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = static_cast<const float*>(x.data) + r * n;
    float* yr = static_cast<float*>(y.data) + r * n;
    float m = xr[0];
    for (int64_t i = 1; i < n; ++i) m = std::fmax(m, xr[i]);
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      yr[i] = std::exp(xr[i] - m);
      sum += yr[i];
    }
    float inv = 1.0f / sum;
    for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
  }
  return 0;
}
