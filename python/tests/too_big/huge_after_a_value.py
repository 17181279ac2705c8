import torch
import torch.nn as nn


class Model(nn.Module):
    """An __init__ that reads a tensor's value, so an estimate builds it for
    real, and then asks for a 4 TB parameter: more than any test machine
    has, which the estimate must refuse in words rather than be killed."""

    def __init__(self):
        super().__init__()
        self.rate = torch.linspace(0, 1, 3)[1].item()
        self.huge = nn.Parameter(torch.empty(2**40))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.rate


def get_inputs():
    return [torch.rand(64, 64)]


def get_init_inputs():
    return []
