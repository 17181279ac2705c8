# The CPU twin of fallback_cuda.py: a load_inline C++ build that fails (a
# missing semicolon), caught, its message printed, and PyTorch doing the work
# instead, as many published generations do. On the CPU no launch is counted,
# so the failed build is the evidence: rejected, quoting what the build said.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = """
#include <torch/extension.h>
torch::Tensor relu_scale(torch::Tensor x) {
    auto y = torch::empty_like(x)
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] > 0.f ? in[i] * 2.f : 0.f;
    return y;
}
"""

try:
    ext = load_inline(name="hone_compat_fallback_cpp", cpp_sources=cpp_source,
                      functions=["relu_scale"], verbose=False)
except Exception as e:
    print(f"building the extension failed, falling back to PyTorch: {e}")
    ext = None


class ModelNew(nn.Module):
    def forward(self, x):
        if ext is not None:
            return ext.relu_scale(x.contiguous())
        return torch.relu(x) * 2.0
