# Launches on torch's current stream (at::cuda::getCurrentCUDAStream()), as
# careful extensions do: passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_scale_current(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x[i] > 0.f ? x[i] : 0.f) * 2.f;
}

torch::Tensor relu_scale(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous(), "x must be a contiguous CUDA tensor");
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  relu_scale_current<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""

ext = load_inline(name="hone_compat_current_stream", cpp_sources="torch::Tensor relu_scale(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["relu_scale"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_scale(x.contiguous())
