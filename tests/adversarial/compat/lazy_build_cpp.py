# Builds its extension on the first call of forward, and its source is a
# module constant: hone reads the call before the module runs, builds it
# outside the sandbox, and the first call (made while the module loads)
# imports it: passes. Its extension is load_inline_cpp.py's (the same name,
# source and functions: one build in hone's cache serves both).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = """
#include <torch/extension.h>
torch::Tensor relu_scale(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] > 0.f ? in[i] * 2.f : 0.f;
    return y;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = None

    def forward(self, x):
        if self.ext is None:
            self.ext = load_inline(name="hone_compat_relu_scale_cpp", cpp_sources=SOURCE,
                                   functions=["relu_scale"])
        return self.ext.relu_scale(x)
