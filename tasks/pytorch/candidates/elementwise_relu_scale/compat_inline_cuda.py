import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float relu2(float v) { return (v < 0.0f ? 0.0f : v) * 2.0f; }

__global__ void relu_scale_vec4(const float4* __restrict__ x, float4* __restrict__ y,
                                int64_t packs) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < packs;
       i += step) {
    const float4 v = x[i];
    y[i] = make_float4(relu2(v.x), relu2(v.y), relu2(v.z), relu2(v.w));
  }
}

__global__ void relu_scale_scalar(const float* __restrict__ x, float* __restrict__ y,
                                  int64_t begin, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = begin + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step)
    y[i] = relu2(x[i]);
}

static unsigned grid_for(int64_t work, int block) {
  const int64_t blocks = (work + block - 1) / block;
  const int64_t cap = 132 * 16;
  return static_cast<unsigned>(blocks < cap ? (blocks > 0 ? blocks : 1) : cap);
}

torch::Tensor relu_scale_cuda(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
  torch::Tensor xc = x.contiguous();
  torch::Tensor y = torch::empty_like(xc);
  const int64_t n = xc.numel();
  if (n == 0) return y;
  const int block = 256;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const float* xp = xc.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  int64_t done = 0;
  if (((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0) {
    const int64_t packs = n / 4;
    if (packs > 0)
      relu_scale_vec4<<<grid_for(packs, block), block, 0, stream>>>(
          reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), packs);
    done = packs * 4;
  }
  if (done < n) relu_scale_scalar<<<grid_for(n - done, block), block, 0, stream>>>(xp, yp, done, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

cpp_source = "torch::Tensor relu_scale_cuda(torch::Tensor x);"

relu_scale = load_inline(
    name="hone_compat_relu_scale_cuda",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu_scale_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    """CUDA extension, correct: relu(x) * 2, float4 grid-stride kernel on the current stream."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.relu_scale = relu_scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu_scale.relu_scale_cuda(x)
