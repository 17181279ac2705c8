# The launch KernelBench's own prompt example teaches: kernel<<<grid, block>>>
# on the legacy default stream, bound with functions=. A PyTorch user's code
# runs on that stream, so hone times it there: passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_scale_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f) * 2.f;
}

torch::Tensor relu_scale_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    const int block = 256;
    relu_scale_kernel<<<(n + block - 1) / block, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor relu_scale_cuda(torch::Tensor x);"

relu_scale = load_inline(name="hone_compat_legacy_stream", cpp_sources=cpp_source,
                         cuda_sources=cuda_source, functions=["relu_scale_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu_scale = relu_scale

    def forward(self, x):
        return self.relu_scale.relu_scale_cuda(x.contiguous())
