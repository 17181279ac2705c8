# Work on a side stream never joined: the kernel is launched on a
# non-blocking stream of its own and forward returns without waiting for it,
# so a timer on the default stream sees almost nothing (KernelBench's
# evaluator flagged 28.9x and still counted it correct). Rejected: work on a
# stream never joined back to the timed one.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.stream = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stream is None:
            self.stream = torch.cuda.Stream()
        out = torch.empty_like(x)
        n = x.numel()
        with torch.cuda.stream(self.stream):
            relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
        return out
