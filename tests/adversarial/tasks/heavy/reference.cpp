// Reference for the adversarial fixture 'heavy':
//   out[i] = sum_{k=0}^{63} sin(a[i] * (k + 1) * 0.01 + b[i]),
// the argument evaluated left to right in T, the terms accumulated in T in order k = 0..63.
// Templated over T (float, double) so hone can run it in float64 for the precision check.
#include <hone/kernel.h>

#include <cmath>

template <typename T>
static void heavy(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * T(k + 1) * T(0.01) + b[i]);
    out[i] = acc;
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 2;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& out = args->outputs[0];
  int64_t n = hone_numel(&out);
  if (hone_numel(&a) != n || hone_numel(&b) != n) return 3;
  if (b.dtype != a.dtype || out.dtype != a.dtype) return 1;
  if (a.dtype == HONE_F32)
    heavy(static_cast<const float*>(a.data), static_cast<const float*>(b.data),
          static_cast<float*>(out.data), n);
  else if (a.dtype == HONE_F64)
    heavy(static_cast<const double*>(a.data), static_cast<const double*>(b.data),
          static_cast<double*>(out.data), n);
  else
    return 1;
  return 0;
}
