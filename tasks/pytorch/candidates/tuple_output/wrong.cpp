// Wrong CPU candidate: writes the tuple in the wrong order, out0 = a * b and out1 = a + b.
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 2) return 2;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  if (a.dtype != HONE_F32 || b.dtype != HONE_F32) return 1;
  const int64_t n = hone_numel(&a);
  const float* ap = static_cast<const float*>(a.data);
  const float* bp = static_cast<const float*>(b.data);
  float* prod = static_cast<float*>(args->outputs[0].data);  // BUG: outputs swapped
  float* sum = static_cast<float*>(args->outputs[1].data);
  for (int64_t i = 0; i < n; ++i) {
    sum[i] = ap[i] + bp[i];
    prod[i] = ap[i] * bp[i];
  }
  return 0;
}
