// Straightforward row_sum candidate: one running sum per row, f32 only.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&y);
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i) s += xp[r * n + i];
    yp[r] = s;
  }
  return 0;
}
