// Fast conv2d candidate for the GPU: implicit GEMM on the FP32 CUDA cores (no tensor cores: TF32
// would fail the task's float64 precision check).
//  - The convolution is the product Y[f, q] = sum_r W[f, r] * X[r, q] with r = (c, kh, kw)
//    (R = C*KH*KW, the weights' own row-major layout) and q = (n, oh, ow) running over every
//    output pixel of every image. X is never materialized: a small kernel first writes, into the
//    workspace, the offset of tap r inside an image (c*H*W + kh*W + kw; -1 for the zero padding
//    past R), and the GEMM gathers X[r, q] = x[base(q) + offset(r)] while it loads a tile.
//  - The GEMM is the register-blocked SGEMM of the matmul task: 128 (filters) x 128 (pixels)
//    block tiles, 256 threads, an 8 x 8 micro-tile per thread from float4 shared-memory reads,
//    BK = 16 slices double-buffered in shared memory with a register prefetch of the next slice.
//    A thread's gather column is fixed, so base(q) is computed once; consecutive threads read
//    consecutive output columns, i.e. consecutive input pixels, and the KH*KW-fold reuse of the
//    input is served by L1/L2.
//  - Edges: loads past F, R or the last pixel are zero-filled and stores are guarded. Weights use
//    float4 loads when R % 4 == 0 and outputs float4 stores when OH*OW % 4 == 0, scalar otherwise.
// Each output is one FMA chain in c, kh, kw order and the bias is added last, like the reference.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <climits>
#include <cstdint>

namespace {

constexpr int BM = 128;  // filters per block tile
constexpr int BN = 128;  // output pixels per block tile
constexpr int BK = 16;   // taps per slice
constexpr int NT = 256;  // threads per block
constexpr int AS_LD = BM + 4;

int64_t padded_taps(int64_t r) { return (r + BK - 1) / BK * BK; }

// off[r] = c*H*W + kh*W + kw for r = (c*KH + kh)*KW + kw < R, and -1 for R <= r < Rpad.
__global__ void tap_offsets(int* __restrict__ off, int R, int Rpad, int KH, int KW, int H, int W) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= Rpad) return;
  if (r >= R) {
    off[r] = -1;
    return;
  }
  const int c = r / (KH * KW), rem = r % (KH * KW);
  off[r] = (c * H + rem / KW) * W + rem % KW;
}

struct ConvShape {
  int F, R;     // GEMM rows (filters) and depth (taps)
  int64_t Q;    // GEMM columns: N * OH * OW
  int P, OW;    // output pixels per image, output width
  int W;        // input width
  int64_t img;  // input elements per image: C * H * W
};

template <bool kVecA, bool kVecY>
__global__ void __launch_bounds__(NT, 2)
    conv_igemm(const float* __restrict__ Wt, const float* __restrict__ X,
               const int* __restrict__ off, const float* __restrict__ bias, float* __restrict__ Y,
               ConvShape s) {
  __shared__ __align__(16) float As[2][BK][AS_LD];
  __shared__ __align__(16) float Bs[2][BK][BN];

  const int tid = threadIdx.x;
  const int warp = tid >> 5, lane = tid & 31;
  // Micro-tile: rows tr + {0..3}, tr + 32 + {0..3}; columns tc + {0..3}, tc + 16 + {0..3}.
  const int tr = (warp >> 2) * 64 + (lane >> 2) * 4;
  const int tc = (warp & 3) * 32 + (lane & 3) * 4;

  const int m0 = blockIdx.y * BM;
  const int64_t q0 = static_cast<int64_t>(blockIdx.x) * BN;

  // Weight slice (BM x BK): rows a_r and a_r + 64, taps a_c..a_c+3.
  const int a_r = tid >> 2, a_c = (tid & 3) * 4;
  const float* a_src0 = Wt + static_cast<int64_t>(m0 + a_r) * s.R;
  const float* a_src1 = Wt + static_cast<int64_t>(m0 + a_r + 64) * s.R;
  const bool a_ok0 = m0 + a_r < s.F, a_ok1 = m0 + a_r + 64 < s.F;

  // Gathered input slice (BK x BN): column b_col, taps b_r..b_r+7.
  const int b_col = tid & (BN - 1), b_r = (tid >> 7) * 8;
  const int64_t q = q0 + b_col;
  const bool q_ok = q < s.Q;
  int64_t xbase = 0;
  if (q_ok) {
    const int64_t n = q / s.P;
    const int p = static_cast<int>(q - n * s.P);
    const int oh = p / s.OW, ow = p - oh * s.OW;
    xbase = n * s.img + static_cast<int64_t>(oh) * s.W + ow;
  }
  const float* xq = X + xbase;

  float4 pa[2];
  float pb[8];

  auto load_slice = [&](int k0) {
    const int ka = k0 + a_c;
    if (kVecA) {
      const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
      pa[0] = (a_ok0 && ka < s.R) ? *reinterpret_cast<const float4*>(a_src0 + ka) : z;
      pa[1] = (a_ok1 && ka < s.R) ? *reinterpret_cast<const float4*>(a_src1 + ka) : z;
    } else {
      float t[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) t[c] = (a_ok0 && ka + c < s.R) ? a_src0[ka + c] : 0.f;
      pa[0] = make_float4(t[0], t[1], t[2], t[3]);
#pragma unroll
      for (int c = 0; c < 4; ++c) t[c] = (a_ok1 && ka + c < s.R) ? a_src1[ka + c] : 0.f;
      pa[1] = make_float4(t[0], t[1], t[2], t[3]);
    }
    // off has a multiple of BK entries and k0 + b_r is a multiple of 8: two aligned int4 loads.
    const int4 o0 = *reinterpret_cast<const int4*>(off + k0 + b_r);
    const int4 o1 = *reinterpret_cast<const int4*>(off + k0 + b_r + 4);
    const int o[8] = {o0.x, o0.y, o0.z, o0.w, o1.x, o1.y, o1.z, o1.w};
#pragma unroll
    for (int i = 0; i < 8; ++i) pb[i] = (q_ok && o[i] >= 0) ? xq[o[i]] : 0.f;
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
#pragma unroll
    for (int i = 0; i < 8; ++i) Bs[buf][b_r + i][b_col] = pb[i];
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  const int ntiles = (s.R + BK - 1) / BK;
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

  // y[n, f, p] for column q = n * P + p.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int64_t qh = q0 + tc + h * 16;  // first of 4 consecutive columns
    if (kVecY) {
      // P % 4 == 0 and qh % 4 == 0: the 4 columns lie in one image, 16-byte aligned.
      if (qh >= s.Q) continue;
      const int64_t n = qh / s.P;
      const int64_t p = qh - n * s.P;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int f = m0 + tr + (i & 3) + (i >> 2) * 32;
        if (f >= s.F) continue;
        const float bf = bias[f];
        *reinterpret_cast<float4*>(Y + (n * s.F + f) * s.P + p) =
            make_float4(acc[i][4 * h] + bf, acc[i][4 * h + 1] + bf, acc[i][4 * h + 2] + bf,
                        acc[i][4 * h + 3] + bf);
      }
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int64_t qc = qh + c;
        if (qc >= s.Q) continue;
        const int64_t n = qc / s.P;
        const int64_t p = qc - n * s.P;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const int f = m0 + tr + (i & 3) + (i >> 2) * 32;
          if (f < s.F) Y[(n * s.F + f) * s.P + p] = acc[i][4 * h + c] + bias[f];
        }
      }
    }
  }
}

}  // namespace

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t num_inputs) {
  if (num_inputs < 2 || inputs[1].ndim != 4) return 0;
  const int64_t r = inputs[1].shape[1] * inputs[1].shape[2] * inputs[1].shape[3];
  return static_cast<size_t>(padded_taps(r)) * sizeof(int);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 1;
  const hone_tensor& xt = args->inputs[0];
  const hone_tensor& wt = args->inputs[1];
  const hone_tensor& bt = args->inputs[2];
  const hone_tensor& yt = args->outputs[0];
  if (xt.dtype != HONE_F32 || wt.dtype != HONE_F32 || bt.dtype != HONE_F32 || yt.dtype != HONE_F32)
    return 1;
  if (xt.ndim != 4 || wt.ndim != 4 || yt.ndim != 4) return 1;
  const int64_t N = xt.shape[0], C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t F = wt.shape[0], KH = wt.shape[2], KW = wt.shape[3];
  const int64_t OH = H - KH + 1, OW = W - KW + 1;
  if (wt.shape[1] != C || OH <= 0 || OW <= 0) return 1;
  if (N == 0 || F == 0) return 0;  // nothing to write
  const int64_t R = C * KH * KW, Rpad = padded_taps(R), P = OH * OW, Q = N * P;
  // Offsets inside one image, taps and filters are 32-bit; pixel indices are 64-bit.
  if (C * H * W > INT_MAX || Rpad > INT_MAX || F > INT_MAX - BM || P > INT_MAX) return 1;
  if (args->workspace == nullptr || args->workspace_bytes < static_cast<size_t>(Rpad) * sizeof(int))
    return 1;
  const int64_t gx = (Q + BN - 1) / BN, gy = (F + BM - 1) / BM;
  if (gx > 0x7fffffff || gy > 65535) return 1;

  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  int* off = static_cast<int*>(args->workspace);
  tap_offsets<<<static_cast<unsigned>((Rpad + 255) / 256), 256, 0, stream>>>(
      off, static_cast<int>(R), static_cast<int>(Rpad), static_cast<int>(KH), static_cast<int>(KW),
      static_cast<int>(H), static_cast<int>(W));

  const auto* wp = static_cast<const float*>(wt.data);
  const auto* xp = static_cast<const float*>(xt.data);
  const auto* bp = static_cast<const float*>(bt.data);
  auto* yp = static_cast<float*>(yt.data);
  const ConvShape s{static_cast<int>(F),  static_cast<int>(R), Q,        static_cast<int>(P),
                    static_cast<int>(OW), static_cast<int>(W), C * H * W};
  const bool vec_a = R % 4 == 0 && reinterpret_cast<uintptr_t>(wp) % 16 == 0;
  const bool vec_y = P % 4 == 0 && reinterpret_cast<uintptr_t>(yp) % 16 == 0;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  if (vec_a && vec_y)
    conv_igemm<true, true><<<grid, NT, 0, stream>>>(wp, xp, off, bp, yp, s);
  else if (vec_a)
    conv_igemm<true, false><<<grid, NT, 0, stream>>>(wp, xp, off, bp, yp, s);
  else if (vec_y)
    conv_igemm<false, true><<<grid, NT, 0, stream>>>(wp, xp, off, bp, yp, s);
  else
    conv_igemm<false, false><<<grid, NT, 0, stream>>>(wp, xp, off, bp, yp, s);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
