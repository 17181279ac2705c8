// Fast attention candidate: fused per row block, the S x S score matrix is never materialized.
//  - K of every batch is transposed once into the workspace ([B][D][S]), so scores for a block
//    of RB = 4 query rows are a small GEMM vectorized over keys: 4 broadcasts of q and 2 loads
//    of k^T feed 8 FMAs per step.
//  - The softmax of the block's RB x S scores (max, vectorized exp, sum) runs while they sit
//    in L1/L2, and p @ v is vectorized over D with the 1/sum normalization applied at the end.
//  - OpenMP parallelizes over (batch, row block). The last block of a batch repeats its last
//    valid query row for the missing rows and never stores them, so any S and D work; tails of
//    S and D use scalar loops.
#include <hone/kernel.h>

#include <algorithm>
#include <cmath>
#include <vector>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace {

constexpr int64_t RB = 4;  // query rows per block

#ifdef __AVX2__
// exp(x) for x <= 0 (Cephes expf polynomial, ~1 ulp); results below 2^-126 flush to 0.
inline __m256 exp_ps(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
  __m256 fx = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f));
  fx = _mm256_floor_ps(fx);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 y = _mm256_set1_ps(1.9875691500e-4f);
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201e-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
  __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127));
  return _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(e, 23)));
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#endif

// sc[r][j] = scale * q_r . k_j for the RB rows q_r and all S keys; kt is k^T ([D][S]).
void scores(const float* const qr[RB], const float* kt, int64_t S, int64_t D, float scale,
            float* sc) {
  int64_t j = 0;
#ifdef __AVX2__
  for (; j + 16 <= S; j += 16) {
    __m256 acc[RB][2];
    for (int r = 0; r < RB; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (int64_t e = 0; e < D; ++e) {
      const __m256 k0 = _mm256_loadu_ps(kt + e * S + j);
      const __m256 k1 = _mm256_loadu_ps(kt + e * S + j + 8);
      for (int r = 0; r < RB; ++r) {
        const __m256 qv = _mm256_broadcast_ss(qr[r] + e);
        acc[r][0] = _mm256_fmadd_ps(qv, k0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(qv, k1, acc[r][1]);
      }
    }
    const __m256 sv = _mm256_set1_ps(scale);
    for (int r = 0; r < RB; ++r) {
      _mm256_storeu_ps(sc + r * S + j, _mm256_mul_ps(acc[r][0], sv));
      _mm256_storeu_ps(sc + r * S + j + 8, _mm256_mul_ps(acc[r][1], sv));
    }
  }
#endif
  for (; j < S; ++j)
    for (int r = 0; r < RB; ++r) {
      float acc = 0.0f;
      for (int64_t e = 0; e < D; ++e) acc += qr[r][e] * kt[e * S + j];
      sc[r * S + j] = acc * scale;
    }
}

// Replaces row[0..S) by exp(row - max) and returns the sum.
float softmax_numerators(float* row, int64_t S) {
  float m = row[0];
  int64_t j = 0;
#ifdef __AVX2__
  if (S >= 8) {
    __m256 mv = _mm256_loadu_ps(row);
    for (j = 8; j + 8 <= S; j += 8) mv = _mm256_max_ps(mv, _mm256_loadu_ps(row + j));
    m = hmax(mv);
  }
#endif
  for (; j < S; ++j) m = std::max(m, row[j]);
  float sum = 0.0f;
  j = 0;
#ifdef __AVX2__
  const __m256 mv = _mm256_set1_ps(m);
  __m256 sv = _mm256_setzero_ps();
  for (; j + 8 <= S; j += 8) {
    const __m256 p = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(row + j), mv));
    _mm256_storeu_ps(row + j, p);
    sv = _mm256_add_ps(sv, p);
  }
  sum = hsum(sv);
#endif
  for (; j < S; ++j) sum += (row[j] = std::exp(row[j] - m));
  return sum;
}

// out rows o_r[0..D) = inv[r] * sum_j p[r][j] v_j for the first nr rows of the block.
void apply_v(const float* p, const float* vb, int64_t S, int64_t D, const float inv[RB], int nr,
             float* const orow[RB]) {
  int64_t e = 0;
#ifdef __AVX2__
  for (; e + 16 <= D; e += 16) {
    __m256 acc[RB][2];
    for (int r = 0; r < RB; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (int64_t j = 0; j < S; ++j) {
      const __m256 v0 = _mm256_loadu_ps(vb + j * D + e);
      const __m256 v1 = _mm256_loadu_ps(vb + j * D + e + 8);
      for (int r = 0; r < RB; ++r) {
        const __m256 pv = _mm256_broadcast_ss(p + r * S + j);
        acc[r][0] = _mm256_fmadd_ps(pv, v0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(pv, v1, acc[r][1]);
      }
    }
    for (int r = 0; r < nr; ++r) {
      const __m256 iv = _mm256_set1_ps(inv[r]);
      _mm256_storeu_ps(orow[r] + e, _mm256_mul_ps(acc[r][0], iv));
      _mm256_storeu_ps(orow[r] + e + 8, _mm256_mul_ps(acc[r][1], iv));
    }
  }
  for (; e + 8 <= D; e += 8) {
    __m256 acc[RB];
    for (int r = 0; r < RB; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t j = 0; j < S; ++j) {
      const __m256 v0 = _mm256_loadu_ps(vb + j * D + e);
      for (int r = 0; r < RB; ++r)
        acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(p + r * S + j), v0, acc[r]);
    }
    for (int r = 0; r < nr; ++r)
      _mm256_storeu_ps(orow[r] + e, _mm256_mul_ps(acc[r], _mm256_set1_ps(inv[r])));
  }
#endif
  for (; e < D; ++e)
    for (int r = 0; r < nr; ++r) {
      float acc = 0.0f;
      for (int64_t j = 0; j < S; ++j) acc += p[r * S + j] * vb[j * D + e];
      orow[r][e] = acc * inv[r];
    }
}

}  // namespace

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t num_inputs) {
  if (num_inputs < 2) return 0;
  return static_cast<size_t>(hone_numel(&inputs[1])) * sizeof(float);  // k^T of every batch
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& qt = args->inputs[0];
  if (qt.dtype != HONE_F32) return 1;
  const float* q = static_cast<const float*>(qt.data);
  const float* k = static_cast<const float*>(args->inputs[1].data);
  const float* v = static_cast<const float*>(args->inputs[2].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t B = qt.shape[0], S = qt.shape[1], D = qt.shape[2];
  if (B <= 0 || S <= 0 || D <= 0) return 0;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));

  std::vector<float> own;
  float* kt = static_cast<float*>(args->workspace);
  if (kt == nullptr || args->workspace_bytes < static_cast<size_t>(B * S * D) * sizeof(float)) {
    own.resize(static_cast<size_t>(B * S * D));
    kt = own.data();
  }
  const int64_t blocks = (S + RB - 1) / RB;

#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t b = 0; b < B; ++b)  // kt[b][e][j] = k[b][j][e]
      for (int64_t j = 0; j < S; ++j)
        for (int64_t e = 0; e < D; ++e) kt[(b * D + e) * S + j] = k[(b * S + j) * D + e];

    std::vector<float> p(static_cast<size_t>(RB * S));
#pragma omp for schedule(static)
    for (int64_t t = 0; t < B * blocks; ++t) {
      const int64_t b = t / blocks, i0 = (t % blocks) * RB;
      const int nr = static_cast<int>(std::min(RB, S - i0));
      const float* qr[RB];
      float* orow[RB];
      for (int r = 0; r < RB; ++r) {
        const int64_t i = b * S + i0 + std::min<int64_t>(r, nr - 1);
        qr[r] = q + i * D;
        orow[r] = out + i * D;
      }
      scores(qr, kt + b * D * S, S, D, scale, p.data());
      float inv[RB];
      for (int r = 0; r < RB; ++r) inv[r] = 1.0f / softmax_numerators(p.data() + r * S, S);
      apply_v(p.data(), v + b * S * D, S, D, inv, nr, orow);
    }
  }
  return 0;
}
