// Correct CPU candidate: out = gelu(x @ weight^T + bias) * 1.5, exact (erf) GELU.
// x [M, K], weight [N, K], bias [N] -> out [M, N]. The scale is the problem's init input
// (scale = 1.5 in fused_linear_gelu.py); it is a plain attribute, not a tensor of the contract.
#include <math.h>

#include "hone/kernel.h"

static const double kScale = 1.5;

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || b.dtype != HONE_F32 || y.dtype != HONE_F32)
    return 1;
  if (x.ndim != 2 || w.ndim != 2 || b.ndim != 1 || y.ndim != 2) return 3;
  const int64_t m = x.shape[0], k = x.shape[1], n = w.shape[0];
  if (w.shape[1] != k || b.shape[0] != n || y.shape[0] != m || y.shape[1] != n) return 3;
  const float* xp = static_cast<const float*>(x.data);
  const float* wp = static_cast<const float*>(w.data);
  const float* bp = static_cast<const float*>(b.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = bp[j];
      for (int64_t p = 0; p < k; ++p) s += static_cast<double>(xp[i * k + p]) * wp[j * k + p];
      const double g = 0.5 * s * (1.0 + erf(s * M_SQRT1_2));
      yp[i * n + j] = static_cast<float>(g * kScale);
    }
  return 0;
}
