import torch
import torch.nn as nn


class Model(nn.Module):
    """Square root: needs a positive input."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sqrt(x)


n = 1024


def get_inputs():
    return [torch.rand(n) + 0.1]


def large_values(seed):
    """Positive values spanning six orders of magnitude."""
    return [torch.exp(torch.empty(n).uniform_(-7.0, 7.0))]


hone_distributions = ["scaled", large_values]


def get_init_inputs():
    return []
