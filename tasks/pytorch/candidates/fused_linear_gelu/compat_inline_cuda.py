import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <math.h>

constexpr int kBM = 64, kBN = 64, kBK = 16;
constexpr int kThreads = 256;  // 16 x 16 threads, 4 x 4 outputs each
constexpr int kTM = 4, kTN = 4;

__device__ __forceinline__ float gelu_erf(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
}

// out[M, N] = gelu(x[M, K] @ w[N, K]^T + b[N]) * scale; tiled shared-memory FP32 GEMM with the
// bias, GELU and scale in the epilogue.
__global__ void __launch_bounds__(kThreads)
    linear_gelu_scale(const float* __restrict__ x, const float* __restrict__ w,
                      const float* __restrict__ b, float* __restrict__ y, int m, int n, int k,
                      float scale) {
  __shared__ float xs[kBK][kBM + 4];
  __shared__ float ws[kBK][kBN + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < k; k0 += kBK) {
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
      if (c < n) y[static_cast<int64_t>(r) * n + c] = gelu_erf(acc[i][j] + b[c]) * scale;
    }
  }
}

torch::Tensor linear_gelu_scale_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b,
                                     double scale) {
  TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "tensors must be on CUDA");
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
                  b.scalar_type() == torch::kFloat32,
              "tensors must be float32");
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && b.dim() == 1 && w.size(1) == x.size(1) &&
                  b.size(0) == w.size(0),
              "shape mismatch");
  torch::Tensor xc = x.contiguous(), wc = w.contiguous(), bc = b.contiguous();
  const int64_t m = xc.size(0), k = xc.size(1), n = wc.size(0);
  torch::Tensor y = torch::empty({m, n}, xc.options());
  if (m == 0 || n == 0) return y;
  const dim3 grid(static_cast<unsigned>((n + kBN - 1) / kBN),
                  static_cast<unsigned>((m + kBM - 1) / kBM));
  linear_gelu_scale<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(),
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), static_cast<float>(scale));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

cpp_source = (
    "torch::Tensor linear_gelu_scale_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, "
    "double scale);"
)

linear_gelu_scale = load_inline(
    name="hone_compat_linear_gelu_scale_cuda",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["linear_gelu_scale_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    """CUDA extension, correct: tiled GEMM with a fused bias + exact GELU + scale epilogue.
    Keeps Model's nn.Linear (same name) so the state_dict matches."""

    def __init__(self, in_features: int, out_features: int, scale: float):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale
        self.linear_gelu_scale = linear_gelu_scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear_gelu_scale.linear_gelu_scale_cuda(
            x, self.linear.weight, self.linear.bias, float(self.scale))
