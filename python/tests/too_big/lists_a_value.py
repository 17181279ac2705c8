import torch
import torch.nn as nn


class Model(nn.Module):
    """A forward that reads a tensor's values with .tolist() (which torch
    1.13's fake tensors refuse outside any operator): an estimate must say
    it reads a value, as for .item()."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = x[0, :2].tolist()
        return x * scale[0]


def get_inputs():
    return [torch.rand(64, 64)]


def get_init_inputs():
    return []
