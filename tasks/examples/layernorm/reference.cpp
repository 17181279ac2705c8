// Reference for layernorm over the last axis, biased variance, two passes:
//   mean = sum(x) / N, var = sum((x - mean)^2) / N,
//   y = (x - mean) / sqrt(var + 1e-5) * weight + bias.
#include <hone/kernel.h>

#include <cmath>

template <typename T>
static void layernorm(const T* x, const T* w, const T* b, T* y, int64_t rows, int64_t n) {
  const T eps = T(1e-5);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += xr[i];
    T mean = sum / T(n);
    T sq = 0;
    for (int64_t i = 0; i < n; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    T var = sq / T(n);
    T denom = std::sqrt(var + eps);
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mean) / denom * w[i] + b[i];
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&x) / n;
  if (x.dtype == HONE_F32)
    layernorm(static_cast<const float*>(x.data), static_cast<const float*>(w.data),
              static_cast<const float*>(b.data), static_cast<float*>(y.data), rows, n);
  else if (x.dtype == HONE_F64)
    layernorm(static_cast<const double*>(x.data), static_cast<const double*>(w.data),
              static_cast<const double*>(b.data), static_cast<double*>(y.data), rows, n);
  else
    return 1;
  return 0;
}
