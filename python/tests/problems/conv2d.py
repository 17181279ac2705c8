import torch
import torch.nn as nn


class Model(nn.Module):
    """A 2-D convolution with weight and bias."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0):
        super().__init__()
        self.conv = nn.Conv2d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding
        )

    def forward(self, x):
        return self.conv(x)


batch_size = 16
in_channels = 3
out_channels = 64
kernel_size = 3
height = 128
width = 256
stride = 1
padding = 1


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding]
