import torch
import torch.nn as nn


class Model(nn.Module):
    """Per-feature affine map with a learned weight and a fixed (buffer) shift."""

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.register_buffer("shift", torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.weight + self.shift


batch_size = 16
dim = 1025


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim]
