// Fast matmul candidate for the GPU: a register-blocked FP32 SGEMM on the CUDA cores (no tensor
// cores: TF32 would fail the task's float64 precision check).
//  - Each 256-thread block computes a 128 x 128 tile of C. The 8 warps are laid out 2 (M) x 4 (N),
//    each owning a 64 x 32 warp tile; a lane owns an 8 x 8 micro-tile made of two 4-row groups
//    (32 rows apart) times two 4-column groups (16 columns apart), so every shared-memory read
//    is a float4 and a warp's reads hit 8 (A) and 4 (B) distinct float4s, free of bank conflicts.
//  - K advances in BK = 16 slices. A's slice is stored transposed (As[k][m], row padded by 4
//    floats), B's as is (Bs[k][n]); both are double-buffered in shared memory and the next slice
//    is prefetched into registers while the current one is multiplied: one __syncthreads per
//    slice, 64 FMAs per 4 LDS.128 in the inner loop.
//  - Edges: loads past M, N or K are zero-filled and stores are guarded, so any M, N, K works.
//    The float4 global path needs K % 4 == 0 and N % 4 == 0 (rows then start 16-byte aligned and a
//    float4 never straddles an edge); other shapes use the same kernel with scalar loads/stores.
// Every output is one FMA chain over k = 0..K-1, the reference's summation order.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <climits>
#include <cstdint>

namespace {

constexpr int BM = 128;  // block tile rows (M)
constexpr int BN = 128;  // block tile columns (N)
constexpr int BK = 16;   // K slice
constexpr int NT = 256;  // threads per block
constexpr int AS_LD = BM + 4;

template <bool kVec>
__global__ void __launch_bounds__(NT, 2)
    sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 int M, int N, int K) {
  __shared__ __align__(16) float As[2][BK][AS_LD];
  __shared__ __align__(16) float Bs[2][BK][BN];

  const int tid = threadIdx.x;
  const int warp = tid >> 5, lane = tid & 31;
  // This thread's micro-tile inside the block tile: rows tr + {0..3} and tr + 32 + {0..3},
  // columns tc + {0..3} and tc + 16 + {0..3}.
  const int tr = (warp >> 2) * 64 + (lane >> 2) * 4;
  const int tc = (warp & 3) * 32 + (lane & 3) * 4;

  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;

  // Global -> shared copy assignment. A slice (BM x BK): rows a_r and a_r + 64, columns
  // a_c..a_c+3. B slice (BK x BN): rows b_r and b_r + 8, columns b_c..b_c+3.
  const int a_r = tid >> 2, a_c = (tid & 3) * 4;
  const int b_r = tid >> 5, b_c = (tid & 31) * 4;
  const float* a_src0 = A + static_cast<int64_t>(m0 + a_r) * K;
  const float* a_src1 = A + static_cast<int64_t>(m0 + a_r + 64) * K;
  const bool a_ok0 = m0 + a_r < M, a_ok1 = m0 + a_r + 64 < M;
  const int b_col = n0 + b_c;

  float4 pa[2], pb[2];  // prefetched slice

  auto load_slice = [&](int k0) {
    const int ka = k0 + a_c;
    const int kb0 = k0 + b_r, kb1 = k0 + b_r + 8;
    if (kVec) {
      const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
      pa[0] = (a_ok0 && ka < K) ? *reinterpret_cast<const float4*>(a_src0 + ka) : z;
      pa[1] = (a_ok1 && ka < K) ? *reinterpret_cast<const float4*>(a_src1 + ka) : z;
      pb[0] = (kb0 < K && b_col < N)
                  ? *reinterpret_cast<const float4*>(B + static_cast<int64_t>(kb0) * N + b_col)
                  : z;
      pb[1] = (kb1 < K && b_col < N)
                  ? *reinterpret_cast<const float4*>(B + static_cast<int64_t>(kb1) * N + b_col)
                  : z;
    } else {
      float t[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) t[c] = (a_ok0 && ka + c < K) ? a_src0[ka + c] : 0.f;
      pa[0] = make_float4(t[0], t[1], t[2], t[3]);
#pragma unroll
      for (int c = 0; c < 4; ++c) t[c] = (a_ok1 && ka + c < K) ? a_src1[ka + c] : 0.f;
      pa[1] = make_float4(t[0], t[1], t[2], t[3]);
      const float* b0 = B + static_cast<int64_t>(kb0) * N;
      const float* b1 = B + static_cast<int64_t>(kb1) * N;
#pragma unroll
      for (int c = 0; c < 4; ++c) t[c] = (kb0 < K && b_col + c < N) ? b0[b_col + c] : 0.f;
      pb[0] = make_float4(t[0], t[1], t[2], t[3]);
#pragma unroll
      for (int c = 0; c < 4; ++c) t[c] = (kb1 < K && b_col + c < N) ? b1[b_col + c] : 0.f;
      pb[1] = make_float4(t[0], t[1], t[2], t[3]);
    }
  };

  auto store_slice = [&](int buf) {
    As[buf][a_c + 0][a_r] = pa[0].x;
    As[buf][a_c + 1][a_r] = pa[0].y;
    As[buf][a_c + 2][a_r] = pa[0].z;
    As[buf][a_c + 3][a_r] = pa[0].w;
    As[buf][a_c + 0][a_r + 64] = pa[1].x;
    As[buf][a_c + 1][a_r + 64] = pa[1].y;
    As[buf][a_c + 2][a_r + 64] = pa[1].z;
    As[buf][a_c + 3][a_r + 64] = pa[1].w;
    *reinterpret_cast<float4*>(&Bs[buf][b_r][b_c]) = pb[0];
    *reinterpret_cast<float4*>(&Bs[buf][b_r + 8][b_c]) = pb[1];
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  const int ntiles = (K + BK - 1) / BK;
  if (ntiles > 0) {
    load_slice(0);
    store_slice(0);
  }
  __syncthreads();

  for (int t = 0; t < ntiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < ntiles) load_slice((t + 1) * BK);  // in flight during the FMAs below
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][k][tr]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][k][tr + 32]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][k][tc]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][k][tc + 16]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    // The other buffer was last read in iteration t - 1, which ended with a barrier.
    if (t + 1 < ntiles) store_slice(cur ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + tr + (i & 3) + (i >> 2) * 32;
    if (row >= M) continue;
    float* crow = C + static_cast<int64_t>(row) * N;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = n0 + tc + h * 16;
      if (kVec) {
        if (col < N)
          *reinterpret_cast<float4*>(crow + col) =
              make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c)
          if (col + c < N) crow[col + c] = acc[i][4 * h + c];
      }
    }
  }
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 1;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const hone_tensor& c = args->outputs[0];
  if (a.dtype != HONE_F32 || b.dtype != HONE_F32 || c.dtype != HONE_F32) return 1;
  if (a.ndim != 2 || b.ndim != 2 || c.ndim != 2) return 1;
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (b.shape[0] != k || c.shape[0] != m || c.shape[1] != n) return 1;
  if (m == 0 || n == 0) return 0;  // nothing to write
  // 32-bit indices inside the kernel (row offsets are 64-bit); grid.y is at most 65535.
  if (m > INT_MAX - BM || n > INT_MAX - BN || k > INT_MAX - BK) return 1;
  const dim3 grid(static_cast<unsigned>((n + BN - 1) / BN),
                  static_cast<unsigned>((m + BM - 1) / BM));
  if (grid.y > 65535) return 1;
  const auto* ap = static_cast<const float*>(a.data);
  const auto* bp = static_cast<const float*>(b.data);
  auto* cp = static_cast<float*>(c.data);
  const bool aligned = (reinterpret_cast<uintptr_t>(ap) | reinterpret_cast<uintptr_t>(bp) |
                        reinterpret_cast<uintptr_t>(cp)) %
                           16 ==
                       0;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (aligned && k % 4 == 0 && n % 4 == 0)
    sgemm_kernel<true><<<grid, NT, 0, stream>>>(ap, bp, cp, static_cast<int>(m),
                                                static_cast<int>(n), static_cast<int>(k));
  else
    sgemm_kernel<false><<<grid, NT, 0, stream>>>(ap, bp, cp, static_cast<int>(m),
                                                 static_cast<int>(n), static_cast<int>(k));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
