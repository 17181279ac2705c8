import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales a tensor by a Python float forward argument and adds one."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, alpha: float) -> torch.Tensor:
        return x * alpha + 1.0


batch_size = 16
dim = 1025


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x, 0.5]


def get_init_inputs():
    return []
