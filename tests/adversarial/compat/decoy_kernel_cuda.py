# Builds a CUDA kernel (so the source looks like a solution) but forward()
# only calls PyTorch. Caught at run time on the GPU: no launch of its own.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
__global__ void decoy_kernel(float* y) { if (y) y[0] = 0.0f; }
torch::Tensor decoy(torch::Tensor x) { return x; }
"""

mod = load_inline(name="hone_compat_decoy", cpp_sources="torch::Tensor decoy(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["decoy"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(mod.decoy(x)) * 2.0
