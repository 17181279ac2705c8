# A TinyDSL ModelNew file for tasks/pytorch/elementwise_relu_scale.py: it
# forgets the scale, so it is wrong.
import torch
import torch.nn as nn
import tinydsl


@tinydsl.kernel
def relu_only(x):
    return torch.clamp(x, min=0.0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu_only(x)
