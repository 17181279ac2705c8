// Correct CPU candidate: out0 = a + b, out1 = a * b (the tuple's order).
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 2) return 2;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& sum = args->outputs[0];
  hone_tensor& prod = args->outputs[1];
  if (a.dtype != HONE_F32 || b.dtype != HONE_F32 || sum.dtype != HONE_F32 || prod.dtype != HONE_F32)
    return 1;
  const int64_t n = hone_numel(&a);
  if (hone_numel(&b) != n || hone_numel(&sum) != n || hone_numel(&prod) != n) return 3;
  const float* ap = static_cast<const float*>(a.data);
  const float* bp = static_cast<const float*>(b.data);
  float* sp = static_cast<float*>(sum.data);
  float* pp = static_cast<float*>(prod.data);
  for (int64_t i = 0; i < n; ++i) {
    sp[i] = ap[i] + bp[i];
    pp[i] = ap[i] * bp[i];
  }
  return 0;
}
