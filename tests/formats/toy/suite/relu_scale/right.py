import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return torch.clamp(x, min=0) + torch.clamp(x, min=0)
