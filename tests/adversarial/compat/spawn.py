# Runs a program from forward(). Caught by the sandbox: no processes once the
# candidate has loaded.
import os

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return torch.relu(x) * 2.0
