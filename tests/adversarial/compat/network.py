# Phones home from forward(). Caught by the sandbox: no sockets.
import socket

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.close()
        return torch.relu(x) * 2.0
