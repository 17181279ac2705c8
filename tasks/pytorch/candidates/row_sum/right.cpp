// Correct CPU candidate: out[b] = sum_i x[b, i] for x [B, N], double accumulator.
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  if (x.ndim != 2 || y.ndim != 1 || y.shape[0] != x.shape[0]) return 3;
  const int64_t rows = x.shape[0], cols = x.shape[1];
  const int64_t rs = x.stride[0], cs = x.stride[1];
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int64_t c = 0; c < cols; ++c) s += xp[r * rs + c * cs];
    yp[r] = static_cast<float>(s);
  }
  return 0;
}
