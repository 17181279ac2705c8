import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear layer, then exact (erf) GELU, then a constant scale."""

    def __init__(self, in_features: int, out_features: int, scale: float):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.linear(x)
        x = torch.nn.functional.gelu(x)
        return x * self.scale


batch_size = 33
in_features = 257
out_features = 129
scale = 1.5


def get_inputs():
    x = torch.randn(batch_size, in_features)
    return [x]


def get_init_inputs():
    return [in_features, out_features, scale]
