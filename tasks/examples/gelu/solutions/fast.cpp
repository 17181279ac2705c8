// Optimized gelu candidate (f32): OpenMP over blocks, AVX2/FMA with an accurate exp.
//
// Uses the identity 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)), so
//   y = x / (1 + exp(-2u)),  -2u = x * (-2c - 2ck * x^2),  c = sqrt(2/pi), k = 0.044715.
// This is the same function as the tanh form and avoids the cancellation in 1 + tanh(u) for
// negative x. exp uses Cephes-style range reduction and a degree-6 polynomial (about 1 ulp).
#include <hone/kernel.h>

#include <cmath>
#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define GELU_AVX2 1
#endif

namespace {

constexpr float kC2 = -1.5957691216057308f;              // -2 * sqrt(2 / pi)
constexpr float kK2 = -1.5957691216057308f * 0.044715f;  // -2 * sqrt(2 / pi) * 0.044715

inline float gelu_scalar(float v) {
  float a = v * std::fma(kK2, v * v, kC2);
  return v / (1.0f + std::exp(a));
}

#ifdef GELU_AVX2
// exp(x) for x in float range; inputs are clamped to [-87.33, 88] so 2^n stays a normal float.
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

inline __m256 gelu8(__m256 v) {
  __m256 a = _mm256_mul_ps(
      v, _mm256_fmadd_ps(_mm256_set1_ps(kK2), _mm256_mul_ps(v, v), _mm256_set1_ps(kC2)));
  return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), exp256(a)));
}
#endif

void gelu_range(const float* x, float* y, int64_t n) {
  int64_t i = 0;
#ifdef GELU_AVX2
  for (; i + 16 <= n; i += 16) {
    __m256 a = gelu8(_mm256_loadu_ps(x + i));
    __m256 b = gelu8(_mm256_loadu_ps(x + i + 8));
    _mm256_storeu_ps(y + i, a);
    _mm256_storeu_ps(y + i + 8, b);
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, gelu8(_mm256_loadu_ps(x + i)));
#endif
  for (; i < n; ++i) y[i] = gelu_scalar(x[i]);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  const int64_t n = hone_numel(&x);
  constexpr int64_t kBlock = 16384;  // elements per task: 64 KiB in, 64 KiB out
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t lo = b * kBlock, hi = lo + kBlock < n ? lo + kBlock : n;
    gelu_range(xp + lo, yp + lo, hi - lo);
  }
  return 0;
}
