# Computes honestly for the first calls (verification), then replays its last
# result (a benchmark's timed loop). Caught: warm-up and timed outputs are
# re-checked against fresh inputs.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.last = None

    def forward(self, x):
        self.calls += 1
        if self.calls > 12 and self.last is not None:
            return self.last
        self.last = torch.relu(x) * 2.0
        return self.last
