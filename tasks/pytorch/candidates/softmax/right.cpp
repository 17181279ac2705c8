// Correct CPU candidate: softmax over the last axis, max-subtracted, double accumulator.
#include <math.h>

#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  if (x.ndim < 1 || hone_numel(&y) != hone_numel(&x)) return 3;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;
  const int64_t rows = hone_numel(&x) / n;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = xp + r * n;
    float* yr = yp + r * n;
    float m = xr[0];
    for (int64_t i = 1; i < n; ++i) m = xr[i] > m ? xr[i] : m;
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += exp(static_cast<double>(xr[i]) - m);
    const double inv = 1.0 / s;
    for (int64_t i = 0; i < n; ++i)
      yr[i] = static_cast<float>(exp(static_cast<double>(xr[i]) - m) * inv);
  }
  return 0;
}
