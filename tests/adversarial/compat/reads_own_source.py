# Reads the file its module came from, as torch.compile's Dynamo, inspect
# and linecache do (open(__file__), not the source hone keeps in linecache).
# The sandbox lets a candidate read its own file, read-only: it passes on its
# kernel (load_inline_cpp.py's extension) instead of failing on a
# PermissionError that names no real cause.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(__file__, encoding="utf-8") as own:
    OWN_SOURCE = own.read()
assert "reads_own_source" not in OWN_SOURCE or "def forward" in OWN_SOURCE

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
