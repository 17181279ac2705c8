import torch
import torch.nn as nn


class Model(nn.Module):
    """A forward that fails under torch's FLOP counter alone (as one that runs
    out of memory on a busy GPU would): the load succeeds without a count,
    and that failure is not kept for later processes."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        from torch.utils._python_dispatch import _get_current_dispatch_mode

        if _get_current_dispatch_mode() is not None:
            raise RuntimeError("no counting here")
        return x * 2


def get_inputs():
    return [torch.rand(64, 64)]


def get_init_inputs():
    return []
