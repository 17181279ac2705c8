import torch
import torch.nn as nn


class Model(nn.Module):
    """Rates read from a tensor with .tolist() in __init__ (which a fake
    tensor refuses outright under torch 1.13, and as a value under torch 2),
    and tensors kept in a plain list and a plain dict: an estimate builds
    such a model for real and must take every one of them in as a fake."""

    def __init__(self, features, layers):
        super().__init__()
        self.rates = torch.linspace(0, 0.1, layers).tolist()
        self.layers = nn.ModuleList(nn.Linear(features, features) for _ in range(layers))
        self.gains = [torch.full((features,), 0.5) for _ in range(layers)]
        self.shift = {"bias": torch.zeros(features)}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for rate, gain, layer in zip(self.rates, self.gains, self.layers):
            x = layer(x) * (1 - rate) * gain
        return x + self.shift["bias"]


features = 256
layers = 3


def get_inputs():
    return [torch.rand(128, features)]


def get_init_inputs():
    return [features, layers]
