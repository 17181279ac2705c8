import torch
import torch.nn as nn


class Model(nn.Module):
    """RMS normalisation over dim 1 of a small (batch, features, d1, d2)
    tensor: a call of a few microseconds, which hone times in several sandbox
    processes, each call's host-side wait a neighbour on the GPU stretches
    (tests/gpu/shared_gpu_test.cc)."""

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x**2, dim=1, keepdim=True) + self.eps)
        return x / rms


batch_size = 4
features = 32
dim1 = 16
dim2 = 16


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
