# Outputs reused across calls: the Triton kernel runs on the first call and
# its result is returned again on every later call, whatever the inputs.
# Rejected (later calls launch nothing of their own) or incorrect (other
# inputs), whichever check meets it first.
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
        self.cached = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.cached is None or self.cached.shape != x.shape:
            out = torch.empty_like(x)
            n = x.numel()
            relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
            self.cached = out
        return self.cached
