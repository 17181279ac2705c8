// Optimized row_sum candidate (f32): OpenMP over rows, AVX2 with four independent accumulators
// (32 lanes of partial sums), which is both faster and more accurate than one running sum.
#include <hone/kernel.h>

#include <cstdint>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace {

float sum_row(const float* x, int64_t n) {
  int64_t i = 0;
  float s = 0.0f;
#if defined(__AVX2__)
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(x + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(x + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(x + i + 24));
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
  __m256 a = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  s = _mm_cvtss_f32(h);
#else
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; ++j) s += x[j];
  i = n;
#endif
  float t = 0.0f;
  for (; i < n; ++i) t += x[i];
  return s + t;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  const int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&y);
  if (n <= 0) {
    for (int64_t r = 0; r < rows; ++r) yp[r] = 0.0f;
    return 0;
  }
#pragma omp parallel for schedule(static) if (rows * n >= 32768 && rows > 1)
  for (int64_t r = 0; r < rows; ++r) yp[r] = sum_row(xp + r * n, n);
  return 0;
}
