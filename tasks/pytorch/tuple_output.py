import torch
import torch.nn as nn


class Model(nn.Module):
    """Returns the elementwise sum and product of two tensors as a tuple."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        return a + b, a * b


batch_size = 16
dim = 1025


def get_inputs():
    a = torch.randn(batch_size, dim)
    b = torch.randn(batch_size, dim)
    return [a, b]


def get_init_inputs():
    return []
