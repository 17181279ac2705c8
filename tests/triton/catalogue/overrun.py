# A masked store that writes past its output: the mask lets the last program
# write one whole block beyond the end of `out` (offsets < n + BLOCK_SIZE).
# Its outputs are right, and the bytes it overwrites belong to torch's
# allocator, not to hone's arena; compute-sanitizer (--sanitize, which bench
# and optimize run on each task's new best) sees the write: runtime_error.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=offsets < n_elements + BLOCK_SIZE)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024) + 1,)](x, out, n, BLOCK_SIZE=1024)
        return out
