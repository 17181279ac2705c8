import torch
import torch.nn as nn
import hone_no_such_package_xyz  # noqa: F401


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(4)]


def get_init_inputs():
    return []
