# A PyTorch problem whose float64 forward is slow (scripts/gpu-check-pytorch):
# the worker makes the float64 reference for the first value sets only, once
# one takes over a second (src/run/oracle_reference.h), and says so. Its own
# Model is its ModelNew, which never runs in float64.
import time

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        if x.dtype == torch.float64:
            time.sleep(1.5)
        return torch.relu(x) * 2


def get_inputs():
    return [torch.randn(64, 1024)]


def get_init_inputs():
    return []


ModelNew = Model
