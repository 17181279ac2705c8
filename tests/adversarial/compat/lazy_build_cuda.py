# Builds its extension on the first call of forward, not at import: hone makes
# that first call while the module loads (before the sandbox's system-call
# filter), so the build runs there: passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
__global__ void relu_scale_lazy(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f) * 2.f;
}
torch::Tensor run(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_scale_lazy<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = None

    def forward(self, x):
        if self.ext is None:
            self.ext = load_inline(name="hone_compat_lazy_build", cpp_sources="torch::Tensor run(torch::Tensor x);",
                                   cuda_sources=cuda_source, functions=["run"], verbose=False)
        return self.ext.run(x.contiguous())
