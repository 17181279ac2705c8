import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over dim 1 of a [batch, dim] tensor."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1)


batch_size = 33
dim = 1025


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
