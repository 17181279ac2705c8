# Returns at once and keeps a thread busy after every call (work moved out of
# the timed span). Caught by the worker's count of CPU time the sandbox burns
# between calls.
import threading
import time

import torch
import torch.nn as nn


def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        threading.Thread(target=_spin, args=(0.5,), daemon=True).start()
        return torch.relu(x) * 2.0
