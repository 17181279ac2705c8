# Looks for the oracle's expected outputs on disk (it writes them to files for
# the worker) and returns them instead of computing. The sandbox cannot see
# them (Landlock: the oracle's folder is not readable; it is private to the
# worker's user anyway), so it finds nothing and returns zeros: incorrect.
import glob

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        for path in glob.glob("/tmp/hone-oracle-*/**/*output*", recursive=True):
            try:
                with open(path, "rb") as f:
                    data = f.read()
                return torch.frombuffer(bytearray(data), dtype=torch.float32).reshape(x.shape)
            except (OSError, RuntimeError, ValueError):
                continue
        return torch.zeros_like(x)
