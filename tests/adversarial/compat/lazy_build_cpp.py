# Builds its extension on the first call of forward, and its source is a
# module constant: hone reads the call before the module runs, builds it
# outside the sandbox, and the first call (made while the module loads)
# imports it: passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = """
#include <torch/extension.h>
torch::Tensor relu_scale(torch::Tensor x) { return torch::relu(x) * 2.0; }
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = None

    def forward(self, x):
        if self.ext is None:
            self.ext = load_inline(name="hone_compat_lazy_cpp", cpp_sources=SOURCE,
                                   functions=["relu_scale"])
        return self.ext.relu_scale(x)
