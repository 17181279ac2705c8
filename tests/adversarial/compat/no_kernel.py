# A KernelBench "solution" that only calls PyTorch: no kernel of its own.
# Caught by the compat lint (no load_inline / cpp_extension / Triton build).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x) * 2.0
