import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <math.h>

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float block_max(float v, float* smem) {
  v = warp_max(v);
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  v = warp_max(lane < kWarps ? smem[lane] : -INFINITY);
  __syncthreads();
  return v;
}

__device__ __forceinline__ float block_sum(float v, float* smem) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  v = warp_sum(lane < kWarps ? smem[lane] : 0.0f);
  __syncthreads();
  return v;
}

__global__ void __launch_bounds__(kBlock)
    softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t n) {
  __shared__ float smem[kWarps];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < n; i += kBlock) m = fmaxf(m, xr[i]);
    m = block_max(m, smem);
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < n; i += kBlock) s += expf(xr[i] - m);
    s = block_sum(s, smem);
    const float inv = 1.0f / s;
    for (int64_t i = threadIdx.x; i < n; i += kBlock) yr[i] = expf(xr[i] - m) * inv;
  }
}

torch::Tensor softmax_cuda(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 && x.dim() >= 1, "x must be float32, >= 1-d");
  torch::Tensor xc = x.contiguous();
  torch::Tensor y = torch::empty_like(xc);
  const int64_t n = xc.size(-1);
  if (xc.numel() == 0) return y;
  const int64_t rows = xc.numel() / n;
  const int64_t grid = rows < 65535 ? rows : 65535;
  softmax_rows<<<static_cast<unsigned>(grid), kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
      xc.data_ptr<float>(), y.data_ptr<float>(), rows, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax = load_inline(
    name="hone_compat_softmax_cuda",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    """CUDA extension, correct: one block per row, warp-shuffle max and sum, current stream."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.softmax = softmax

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.softmax.softmax_cuda(x)
