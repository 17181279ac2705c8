import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Plain PyTorch, correct: clamp at zero, then scale by 2."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp_min(x, 0.0) * 2.0
