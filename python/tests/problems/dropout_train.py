import torch
import torch.nn as nn


class Model(nn.Module):
    """Training-mode dropout (as in KernelBench's level2/66): the forward draws
    random numbers, so a candidate is seeded as the oracle's forward was."""

    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return torch.softmax(self.dropout(x * 2.0), dim=1)


batch_size = 8
dim = 257
p = 0.25


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [p]
