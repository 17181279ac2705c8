// Reference for the adversarial fixture 'matmul': C[M,N] = A[M,K] @ B[K,N], row-major, one dot
// product per output element accumulated in T in order k = 0..K-1. Templated over T (float,
// double) so hone can run it in float64 for the precision check.
#include <hone/kernel.h>

template <typename T>
static void matmul(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 2;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& c = args->outputs[0];
  if (a.ndim != 2 || b.ndim != 2 || c.ndim != 2) return 3;
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (b.shape[0] != k || c.shape[0] != m || c.shape[1] != n) return 3;
  if (b.dtype != a.dtype || c.dtype != a.dtype) return 1;
  if (a.dtype == HONE_F32)
    matmul(static_cast<const float*>(a.data), static_cast<const float*>(b.data),
           static_cast<float*>(c.data), m, n, k);
  else if (a.dtype == HONE_F64)
    matmul(static_cast<const double*>(a.data), static_cast<const double*>(b.data),
           static_cast<double*>(c.data), m, n, k);
  else
    return 1;
  return 0;
}
