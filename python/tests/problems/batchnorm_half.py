import torch
import torch.nn as nn


class Model(nn.Module):
    """Train-mode BatchNorm (updates running stats), output cast to f16."""

    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        return self.bn(x).half()


batch_size = 64
num_features = 32


def get_inputs():
    return [torch.randn(batch_size, num_features) * 3 + 1]


def get_init_inputs():
    return [num_features]
