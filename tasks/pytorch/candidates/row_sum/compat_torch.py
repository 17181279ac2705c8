import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Plain PyTorch, correct: row sums over the last axis."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=-1)
