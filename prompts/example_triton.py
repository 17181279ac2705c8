# A worked example for ANOTHER problem, not the one you are asked to solve.
# That problem: Model.forward(x) returns 2 * x + 1 for one float32 tensor x of
# any shape. The example shows the format: ModelNew with Model's
# constructor, a Triton kernel launched on every call, every element
# written, the output allocated (not computed) with torch.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # int64: tensors may pass 2**31 elements
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, 2.0 * x + 1.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        affine_kernel[grid](x, y, n, BLOCK_SIZE=1024)
        return y
