import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies by a Python number passed to forward."""

    def __init__(self):
        super().__init__()

    def forward(self, x, alpha):
        return x * alpha


n = 64
m = 128


def get_inputs():
    return [torch.randn(n, m), 0.75]


def get_init_inputs():
    return []
