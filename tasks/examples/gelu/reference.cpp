// Reference for gelu: y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), elementwise.
#include <hone/kernel.h>

#include <cmath>

template <typename T>
static void gelu(const T* x, T* y, int64_t n) {
  const T c = T(0.7978845608028654);  // sqrt(2 / pi)
  const T k = T(0.044715);
  for (int64_t i = 0; i < n; ++i) {
    T v = x[i];
    T u = c * (v + k * v * v * v);
    y[i] = T(0.5) * v * (T(1) + std::tanh(u));
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  int64_t n = hone_numel(&x);
  if (x.dtype == HONE_F32)
    gelu(static_cast<const float*>(x.data), static_cast<float*>(y.data), n);
  else if (x.dtype == HONE_F64)
    gelu(static_cast<const double*>(x.data), static_cast<double*>(y.data), n);
  else
    return 1;
  return 0;
}
