// Wrong CPU candidate: off-by-one loop bound, the last element is never written.
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const int64_t n = hone_numel(&x);
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t i = 0; i < n - 1; ++i) {  // BUG: should be i < n
    const float v = xp[i] < 0.0f ? 0.0f : xp[i];
    yp[i] = v * 2.0f;
  }
  return 0;
}
