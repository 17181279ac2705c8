# Reseeds torch itself before dropping out: a mask other than the one the
# expected outputs were computed with, so its outputs are wrong.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        torch.manual_seed(12345)
        return torch.softmax(self.dropout(x * 2.0), dim=1)
