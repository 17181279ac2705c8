// Reference for softmax over the last axis, with m = max_j x[b, j]:
//   y[b, i] = exp(x[b, i] - m) / sum_j exp(x[b, j] - m).
#include <hone/kernel.h>

#include <cmath>

template <typename T>
static void softmax_rows(const T* x, T* y, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    T m = xr[0];
    for (int64_t i = 1; i < n; ++i) m = xr[i] > m ? xr[i] : m;
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += (yr[i] = std::exp(xr[i] - m));
    for (int64_t i = 0; i < n; ++i) yr[i] /= sum;
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&x) / n;
  if (x.dtype == HONE_F32)
    softmax_rows(static_cast<const float*>(x.data), static_cast<float*>(y.data), rows, n);
  else if (x.dtype == HONE_F64)
    softmax_rows(static_cast<const double*>(x.data), static_cast<double*>(y.data), rows, n);
  else
    return 1;
  return 0;
}
