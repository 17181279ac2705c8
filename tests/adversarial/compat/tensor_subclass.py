# Returns a torch.Tensor subclass: its own code would run when hone copies
# the result, after the timed span ended (a lazy tensor could compute
# there). The runner refuses anything but plain tensors: a runtime error.
import torch
import torch.nn as nn


class Deferred(torch.Tensor):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        return (torch.relu(x) * 2.0).as_subclass(Deferred)
