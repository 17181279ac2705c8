// Reference for row_sum: y[r] = sum over i of x[r, i], summed left to right.
#include <hone/kernel.h>

template <typename T>
static void row_sum(const T* x, T* y, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T s = 0;
    for (int64_t i = 0; i < n; ++i) s += xr[i];
    y[r] = s;
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&y);
  if (x.dtype == HONE_F32)
    row_sum(static_cast<const float*>(x.data), static_cast<float*>(y.data), rows, n);
  else if (x.dtype == HONE_F64)
    row_sum(static_cast<const double*>(x.data), static_cast<double*>(y.data), rows, n);
  else
    return 1;
  return 0;
}
