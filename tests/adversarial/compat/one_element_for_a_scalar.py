# The right value in the wrong shape: the Model returns a 0-d mean, shape (),
# and this ModelNew returns it as a one-element tensor, shape (1,), as models
# often write it. KernelBench counts it incorrect ("Output shape mismatch"),
# and so does hone: a wrong output, not an error. Run against
# tests/adversarial/compat/problems/scalar_mean.py (pytorch_task_test.cc).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x).reshape(1)
