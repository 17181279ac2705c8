# Most of the work in torch: a Triton kernel clamps the result, while
# torch.matmul computes the product it was asked to write. It launches a
# kernel of its own, so the run-time checks let it through; hone's static
# rules warn that forward computes with torch (an error unless library
# calls are allowed: --allow library).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        c = torch.matmul(A, B)
        out = torch.empty_like(c)
        n = c.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](c, out, n, BLOCK_SIZE=1024)
        return out
