// Correct CPU candidate: out = x * alpha + 1. alpha is the Python float forward argument, passed
// as a 0-d tensor; its dtype is read from the contract (f32 today, f64 or i64 also accepted).
#include "hone/kernel.h"

static int read_scalar(const hone_tensor& t, float* v) {
  if (hone_numel(&t) != 1) return 3;
  switch (t.dtype) {
    case HONE_F32:
      *v = *static_cast<const float*>(t.data);
      return 0;
    case HONE_F64:
      *v = static_cast<float>(*static_cast<const double*>(t.data));
      return 0;
    case HONE_I64:
      *v = static_cast<float>(*static_cast<const int64_t*>(t.data));
      return 0;
    default:
      return 1;
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  float alpha = 0.0f;
  if (int rc = read_scalar(args->inputs[1], &alpha)) return rc;
  const int64_t n = hone_numel(&x);
  if (hone_numel(&y) != n) return 3;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] * alpha + 1.0f;
  return 0;
}
