# A PyTorch problem whose float64 forward is slow (scripts/gpu-check-pytorch):
# the worker makes the float64 reference for the first value sets only, once
# one takes over a second (src/pytorch/oracle_reference.h), and says so. Its own
# Model is its ModelNew, which never runs in float64.
#
# The slow part runs on the GPU, queued: the Python calls return at once and
# the device works on for seconds, as a large float64 convolution does
# (KernelBench level1/68). The oracle must time the work, not the queuing.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        if x.dtype != torch.float64:
            return torch.relu(x) * 2
        # About 110 TFLOP of float64 matrix products (4096^3 * 2 * 800): a
        # second and more on an H100's 67 FP64 TFLOP/s.
        w = torch.eye(4096, dtype=torch.float64, device=x.device)
        acc = w
        for _ in range(800):
            acc = acc @ w
        return torch.relu(x) * 2 + 0 * acc[0, 0]


def get_inputs():
    return [torch.randn(64, 1024)]


def get_init_inputs():
    return []


ModelNew = Model
