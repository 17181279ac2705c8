import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Plain PyTorch, correct: softmax spelled out with a max-subtracted exp."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)
