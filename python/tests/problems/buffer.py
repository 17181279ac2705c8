import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds a registered buffer (a persistent, non-parameter tensor)."""

    def __init__(self, dim):
        super().__init__()
        self.register_buffer("offset", torch.randn(dim))

    def forward(self, x):
        return x + self.offset


batch_size = 32
dim = 512


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
