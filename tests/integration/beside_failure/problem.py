# A PyTorch problem whose Model fails from its third call in a hone sandbox
# (the compat runner names itself "hone-compat"), never in the oracle: the
# eager baseline timed beside the candidate fails, and the evaluation goes
# on without it (pytorch_task_test.cc, PyTorchTiming::TimeBesideTheBaseline).
import sys

import torch
import torch.nn as nn

calls = 0


class Model(nn.Module):
    def forward(self, x):
        global calls
        calls += 1
        if sys.argv[:1] == ["hone-compat"] and calls > 2:
            raise RuntimeError("this Model fails in a sandbox after two calls")
        return torch.relu(x) * 2


def get_inputs():
    return [torch.randn(16, 256)]


def get_init_inputs():
    return []
