# Wraps a build that fails (a typo in the CUDA source) in try/except and falls
# back to PyTorch, as many published generations do. Rejected (no kernel of
# its own), and the verdict says what the build raised.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
__global__ void relu_scale_broken(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x
    if (i < n) y[i] = fmaxf(x[i], 0.f) * 2.f;
}
torch::Tensor run(torch::Tensor x) {
    auto y = torch::empty_like(x);
    relu_scale_broken<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""

try:
    ext = load_inline(name="hone_compat_fallback", cpp_sources="torch::Tensor run(torch::Tensor x);",
                      cuda_sources=cuda_source, functions=["run"], verbose=False)
except Exception:
    ext = None


class ModelNew(nn.Module):
    def forward(self, x):
        if ext is not None:
            return ext.run(x.contiguous())
        return torch.relu(x) * 2.0
