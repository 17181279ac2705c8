import torch
import torch.nn as nn


class Model(nn.Module):
    """Per-layer rates computed in __init__ from a tensor's values, as
    timm's models compute their stochastic-depth rates: an estimate builds
    such a model for real and estimates the rest. `gain` is a tensor kept as
    a plain attribute, which the estimate must take in as a fake too."""

    def __init__(self, features, layers):
        super().__init__()
        self.rates = [r.item() for r in torch.linspace(0, 0.1, layers)]
        self.layers = nn.ModuleList(nn.Linear(features, features) for _ in range(layers))
        self.gain = torch.full((features,), 0.5)  # a plain attribute, neither parameter nor buffer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for rate, layer in zip(self.rates, self.layers):
            x = layer(x) * (1 - rate)
        return x * self.gain


features = 256
layers = 4


def get_inputs():
    return [torch.rand(128, features)]


def get_init_inputs():
    return [features, layers]
