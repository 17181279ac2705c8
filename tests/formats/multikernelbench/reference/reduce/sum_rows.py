import torch
import torch.nn as nn


class Model(nn.Module):
    """Sums each row."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 8
features = 777
reduce_dim = 1


def get_inputs():
    x = torch.rand(batch_size, features)
    return [x]


def get_init_inputs():
    return [reduce_dim]
