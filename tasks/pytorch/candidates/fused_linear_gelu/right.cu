// Correct CUDA candidate: out = gelu(x @ weight^T + bias) * 1.5 with the exact (erf) GELU.
// x [M, K], weight [N, K] (both K-contiguous), bias [N] -> out [M, N]. A tiled shared-memory
// GEMM: 64x64 output tile per block of 256 threads, each thread a 4x4 micro-tile, K in steps
// of 16; the bias, GELU and scale are applied in the epilogue from registers. FP32 FMA
// throughout (no tensor cores, no TF32). The scale is the problem's init input (1.5).
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "hone/kernel.h"

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 16;
constexpr int kThreads = 256;  // 16 x 16 threads, 4 x 4 outputs each
constexpr int kTM = 4, kTN = 4;
constexpr float kScale = 1.5f;

__device__ __forceinline__ float gelu_erf(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
}

__global__ void __launch_bounds__(kThreads)
    linear_gelu_scale(const float* __restrict__ x, const float* __restrict__ w,
                      const float* __restrict__ b, float* __restrict__ y, int m, int n, int k) {
  // Stored K-major so that the inner loop reads a row of 4 consecutive m (or n) values.
  __shared__ float xs[kBK][kBM + 4];
  __shared__ float ws[kBK][kBN + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < k; k0 += kBK) {
    // 64 x 16 elements per tile, 4 per thread; consecutive threads walk along K (coalesced).
#pragma unroll
    for (int l = 0; l < (kBM * kBK) / kThreads; ++l) {
      const int e = threadIdx.x + l * kThreads;
      const int rr = e / kBK, kk = e % kBK;
      const int gk = k0 + kk;
      const int gr = row0 + rr, gc = col0 + rr;
      xs[kk][rr] = (gr < m && gk < k) ? x[static_cast<int64_t>(gr) * k + gk] : 0.0f;
      ws[kk][rr] = (gc < n && gk < k) ? w[static_cast<int64_t>(gc) * k + gk] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a[kTM], bv[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) a[i] = xs[kk][ty * kTM + i];
#pragma unroll
      for (int j = 0; j < kTN; ++j) bv[j] = ws[kk][tx * kTN + j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int r = row0 + ty * kTM + i;
    if (r >= m) continue;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int c = col0 + tx * kTN + j;
      if (c < n) y[static_cast<int64_t>(r) * n + c] = gelu_erf(acc[i][j] + b[c]) * kScale;
    }
  }
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || b.dtype != HONE_F32 || y.dtype != HONE_F32)
    return 1;
  if (x.ndim != 2 || w.ndim != 2 || b.ndim != 1 || y.ndim != 2) return 3;
  const int64_t m = x.shape[0], k = x.shape[1], n = w.shape[0];
  if (w.shape[1] != k || b.shape[0] != n || y.shape[0] != m || y.shape[1] != n) return 3;
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return 3;
  if (m == 0 || n == 0) return 0;
  const dim3 grid(static_cast<unsigned>((n + kBN - 1) / kBN),
                  static_cast<unsigned>((m + kBM - 1) / kBM));
  if (grid.y > 65535) return 3;
  linear_gelu_scale<<<grid, kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(x.data), static_cast<const float*>(w.data),
      static_cast<const float*>(b.data), static_cast<float*>(y.data), static_cast<int>(m),
      static_cast<int>(n), static_cast<int>(k));
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
