// Wrong CPU candidate: reduces the wrong axis. out[j] = sum_b x[b, j] (a column sum), written
// for the first B columns only, so the output shape is right and the values are not.
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  if (x.ndim != 2 || y.ndim != 1) return 3;
  const int64_t rows = x.shape[0], cols = x.shape[1];
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t j = 0; j < y.shape[0]; ++j) {
    double s = 0.0;
    // BUG: sums down column j instead of along row j.
    for (int64_t r = 0; r < rows; ++r) s += j < cols ? xp[r * cols + j] : 0.0f;
    yp[j] = static_cast<float>(s);
  }
  return 0;
}
