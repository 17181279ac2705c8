// Optimized softmax candidate (f32): OpenMP over rows, AVX2/FMA vector max, exp and sum.
//
// Per row: (1) vector max, (2) e = exp(x - max) written to y while summing, (3) y *= 1 / sum.
// Passes 2 and 3 touch a row that is still in L1/L2. exp uses Cephes-style range reduction and
// a degree-6 polynomial (about 1 ulp), so the result stays as accurate as a libm exp.
#include <hone/kernel.h>

#include <cmath>
#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define SOFTMAX_AVX2 1
#endif

namespace {

#ifdef SOFTMAX_AVX2
// exp(x) for x <= 0 (and up to 88); inputs below -87.33 give about 1e-38 instead of 0.
inline __m256 exp256(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.33654f)), _mm256_set1_ps(88.0f));
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);  // exact product
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
  p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
  __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

inline float hsum(__m256 a) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

inline float hmax(__m256 a) {
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}
#endif

void softmax_row(const float* x, float* y, int64_t n) {
  float m = x[0];
  int64_t i = 0;
#ifdef SOFTMAX_AVX2
  if (n >= 16) {
    __m256 m0 = _mm256_loadu_ps(x), m1 = _mm256_loadu_ps(x + 8);
    for (i = 16; i + 16 <= n; i += 16) {
      m0 = _mm256_max_ps(m0, _mm256_loadu_ps(x + i));
      m1 = _mm256_max_ps(m1, _mm256_loadu_ps(x + i + 8));
    }
    m = hmax(_mm256_max_ps(m0, m1));
  }
#endif
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;

  float sum = 0.0f;
  i = 0;
#ifdef SOFTMAX_AVX2
  const __m256 vm = _mm256_set1_ps(m);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    __m256 e0 = exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    __m256 e1 = exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vm));
    _mm256_storeu_ps(y + i, e0);
    _mm256_storeu_ps(y + i + 8, e1);
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 e0 = exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    _mm256_storeu_ps(y + i, e0);
    s0 = _mm256_add_ps(s0, e0);
  }
  sum = hsum(_mm256_add_ps(s0, s1));
#endif
  for (; i < n; ++i) sum += (y[i] = std::exp(x[i] - m));

  const float inv = 1.0f / sum;
  i = 0;
#ifdef SOFTMAX_AVX2
  const __m256 vinv = _mm256_set1_ps(inv);
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), vinv));
#endif
  for (; i < n; ++i) y[i] *= inv;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  const int64_t n = x.shape[x.ndim - 1];
  if (n <= 0) return 0;  // empty rows: nothing to write
  const int64_t rows = hone_numel(&x) / n;
#pragma omp parallel for schedule(static) if (rows * n >= 32768 && rows > 1)
  for (int64_t r = 0; r < rows; ++r) softmax_row(xp + r * n, yp + r * n, n);
  return 0;
}
