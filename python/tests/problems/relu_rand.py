import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU of inputs that get_inputs() draws in [0, 1), as KernelBench's
    level1/19_ReLU does: a kernel right only for non-negative values passes
    every get_inputs() draw."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 16
dim = 512


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
