# The usual KernelBench shape on the CPU: a C++ kernel built with load_inline
# at import. hone builds it outside the sandbox (cached, a precompiled torch
# header) and the module imports the result: passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = """
#include <torch/extension.h>
torch::Tensor relu_scale(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] > 0.f ? in[i] * 2.f : 0.f;
    return y;
}
"""

relu_scale = load_inline(name="hone_compat_relu_scale_cpp", cpp_sources=cpp_source,
                         functions=["relu_scale"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu_scale.relu_scale(x.contiguous())
