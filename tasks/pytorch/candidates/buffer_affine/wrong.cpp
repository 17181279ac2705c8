// Wrong CPU candidate: forgets the registered buffer, out = x * weight (no shift).
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  if (x.ndim < 1 || w.ndim != 1) return 3;
  const int64_t d = x.shape[x.ndim - 1];
  const int64_t rows = d == 0 ? 0 : hone_numel(&x) / d;
  const float* xp = static_cast<const float*>(x.data);
  const float* wp = static_cast<const float*>(w.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < d; ++i) yp[r * d + i] = xp[r * d + i] * wp[i];  // BUG: + shift[i]
  return 0;
}
