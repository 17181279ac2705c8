import torch
import torch.nn as nn


class Model(nn.Module):
    """Product of two lower-triangular matrices (the result is lower-triangular)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.tril(torch.matmul(A, B))


M = 128


def get_inputs():
    A = torch.tril(torch.randn(M, M))
    B = torch.tril(torch.randn(M, M))
    return [A, B]


def get_init_inputs():
    return []
