// Naive matmul candidate: i-k-j loop order, so the inner loop streams rows of B and C.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& c = args->outputs[0];
  if (a.dtype != HONE_F32 || b.dtype != HONE_F32 || c.dtype != HONE_F32) return 1;
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  const float* A = static_cast<const float*>(a.data);
  const float* B = static_cast<const float*>(b.data);
  float* C = static_cast<float*>(c.data);
  for (int64_t i = 0; i < m; ++i) {
    float* ci = C + i * n;
    for (int64_t j = 0; j < n; ++j) ci[j] = 0.0f;
    for (int64_t p = 0; p < k; ++p) {
      const float aip = A[i * k + p];
      const float* bp = B + p * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
  return 0;
}
