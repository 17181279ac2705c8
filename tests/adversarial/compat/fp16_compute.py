# Works on half-precision data where the task is float32 (half the memory
# traffic; the CPU has no half relu, so the values are rounded through
# float16). Caught by the tolerance and the float64 precision check.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x.half().float()) * 2.0
