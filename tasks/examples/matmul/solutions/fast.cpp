// Fast matmul candidate: BLIS-style packed GEMM.
//  - B is packed into NR-column panels and A into MR-row panels for each KC-deep slice, so the
//    micro-kernel streams both operands contiguously.
//  - The MR x NR = 6 x 16 micro-kernel keeps the C tile in 12 AVX2 registers and does 12 FMAs
//    per 2 loads of B and 6 broadcasts of A (scalar fallback without AVX2).
//  - OpenMP splits the (MC-row block, column chunk) tiles of every slice across threads.
// Edges are handled by zero-padding the packed panels and writing partial tiles through a
// small local buffer, so any M, N, K works and nothing outside the tensors is read or written.
#include <hone/kernel.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace {

constexpr int64_t MR = 6;
constexpr int64_t NR = 16;
constexpr int64_t KC = 256;   // depth of a packed slice: one B panel (KC x NR) is 16 KiB
constexpr int64_t MC = 96;    // rows of A per task: 96 x 256 floats = 96 KiB, stays in L2
constexpr int64_t NB = 64;    // columns of C per task (4 panels)
constexpr int64_t NC = 4096;  // columns of B packed at once

struct AlignedBuffer {
  float* p = nullptr;
  explicit AlignedBuffer(size_t n) {
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    p = static_cast<float*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64));
  }
  ~AlignedBuffer() { std::free(p); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

// C tile (MR x NR, row stride ldc) = (accumulate ? C : 0) + Ap(MR x kc) * Bp(kc x NR).
inline void micro_kernel(int64_t kc, const float* __restrict ap, const float* __restrict bp,
                         float* __restrict c, int64_t ldc, bool accumulate) {
#ifdef __AVX2__
  __m256 acc[MR][2];
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(bp);
    const __m256 b1 = _mm256_load_ps(bp + 8);
    for (int r = 0; r < MR; ++r) {
      const __m256 a = _mm256_broadcast_ss(ap + r);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
    ap += MR;
    bp += NR;
  }
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * ldc;
    if (accumulate) {
      acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_loadu_ps(cr));
      acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_loadu_ps(cr + 8));
    }
    _mm256_storeu_ps(cr, acc[r][0]);
    _mm256_storeu_ps(cr + 8, acc[r][1]);
  }
#else
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int r = 0; r < MR; ++r) {
      const float a = ap[r];
#pragma omp simd
      for (int j = 0; j < NR; ++j) acc[r][j] += a * bp[j];
    }
    ap += MR;
    bp += NR;
  }
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NR; ++j) c[r * ldc + j] = (accumulate ? c[r * ldc + j] : 0.0f) + acc[r][j];
#endif
}

// Packs rows [i0, i0 + MR) x columns [p0, p0 + kc) of A into one MR-row panel, zero-padding
// rows past m.
inline void pack_a_panel(const float* a, int64_t lda, int64_t m, int64_t i0, int64_t p0, int64_t kc,
                         float* dst) {
  const int64_t rows = std::min(MR, m - i0);
  for (int64_t r = 0; r < MR; ++r) {
    if (r < rows) {
      const float* src = a + (i0 + r) * lda + p0;
      for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = src[p];
    } else {
      for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = 0.0f;
    }
  }
}

// Packs rows [p0, p0 + kc) x columns [j0, j0 + NR) of B into one NR-column panel,
// zero-padding columns past n.
inline void pack_b_panel(const float* b, int64_t ldb, int64_t n, int64_t p0, int64_t kc, int64_t j0,
                         float* dst) {
  const int64_t cols = std::min(NR, n - j0);
  for (int64_t p = 0; p < kc; ++p) {
    const float* src = b + (p0 + p) * ldb + j0;
    float* d = dst + p * NR;
    if (cols == NR) {
      std::memcpy(d, src, NR * sizeof(float));
    } else {
      for (int64_t j = 0; j < cols; ++j) d[j] = src[j];
      for (int64_t j = cols; j < NR; ++j) d[j] = 0.0f;
    }
  }
}

void gemm(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(C, C + m * n, 0.0f);
    return;
  }
  const int64_t m_panels = (m + MR - 1) / MR;
  const int64_t kc_max = std::min(KC, k);
  const int64_t nc_max = std::min(NC, n);
  const int64_t nc_panels_max = (nc_max + NR - 1) / NR;
  AlignedBuffer ap(static_cast<size_t>(m_panels * MR * kc_max));
  AlignedBuffer bp(static_cast<size_t>(nc_panels_max * NR * kc_max));

#pragma omp parallel
  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    const int64_t n_panels = (nc + NR - 1) / NR;
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      const bool accumulate = pc > 0;
#pragma omp for schedule(static)
      for (int64_t jp = 0; jp < n_panels; ++jp)
        pack_b_panel(B, n, n, pc, kc, jc + jp * NR, bp.p + jp * NR * kc);
#pragma omp for schedule(static)
      for (int64_t ip = 0; ip < m_panels; ++ip)
        pack_a_panel(A, k, m, ip * MR, pc, kc, ap.p + ip * MR * kc);

      const int64_t row_blocks = (m + MC - 1) / MC;
      const int64_t col_blocks = (nc + NB - 1) / NB;
#pragma omp for schedule(static)
      for (int64_t t = 0; t < row_blocks * col_blocks; ++t) {
        const int64_t i_begin = (t / col_blocks) * MC, i_end = std::min(m, i_begin + MC);
        const int64_t j_begin = (t % col_blocks) * NB, j_end = std::min(nc, j_begin + NB);
        for (int64_t j = j_begin; j < j_end; j += NR) {
          const float* bpanel = bp.p + (j / NR) * NR * kc;
          const int64_t cols = std::min(NR, j_end - j);
          for (int64_t i = i_begin; i < i_end; i += MR) {
            const float* apanel = ap.p + (i / MR) * MR * kc;
            const int64_t rows = std::min(MR, i_end - i);
            float* c = C + i * n + jc + j;
            if (rows == MR && cols == NR) {
              micro_kernel(kc, apanel, bpanel, c, n, accumulate);
            } else {
              alignas(64) float tile[MR * NR];
              micro_kernel(kc, apanel, bpanel, tile, NR, false);
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t jj = 0; jj < cols; ++jj)
                  c[r * n + jj] = (accumulate ? c[r * n + jj] : 0.0f) + tile[r * NR + jj];
            }
          }
        }
      }
    }
  }
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& c = args->outputs[0];
  if (a.dtype != HONE_F32 || b.dtype != HONE_F32 || c.dtype != HONE_F32) return 1;
  gemm(static_cast<const float*>(a.data), static_cast<const float*>(b.data),
       static_cast<float*>(c.data), a.shape[0], b.shape[1], a.shape[1]);
  return 0;
}
