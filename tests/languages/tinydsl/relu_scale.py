# A TinyDSL ModelNew file for tasks/pytorch/elementwise_relu_scale.py: right.
import torch
import torch.nn as nn
import tinydsl


@tinydsl.kernel
def relu_scale(x):
    return torch.clamp(x, min=0.0) * 2.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu_scale(x)
