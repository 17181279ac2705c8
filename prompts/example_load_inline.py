# A worked example for ANOTHER problem, not the one you are asked to solve.
# That problem: Model.forward(x) returns 2 * x + 1 for one float32 tensor x of
# any shape. The example shows the format: a CUDA kernel built with
# load_inline at import time and launched on every call of ModelNew.forward.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void affine_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

torch::Tensor affine(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    affine_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

affine_ext = load_inline(name="affine_ext", cpp_sources="torch::Tensor affine(torch::Tensor x);",
                         cuda_sources=cuda_source, functions=["affine"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_ext.affine(x)
