import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# The very extension tests/adversarial/compat/load_inline_cpp.py builds (the
# same name, source and functions: one build in hone's cache serves both).
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

relu_scale = load_inline(
    name="hone_compat_relu_scale_cpp",
    cpp_sources=cpp_source,
    functions=["relu_scale"],
    verbose=False,
)


class ModelNew(nn.Module):
    """C++ CPU extension, correct: relu(x) * 2 in one loop."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.relu_scale = relu_scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu_scale.relu_scale(x.contiguous())
