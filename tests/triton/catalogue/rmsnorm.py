# Correct: RMS normalisation over dim 1 of a (batch, features, d1, d2) tensor
# (KernelBench level1/36_RMSNorm_). One program per (batch, block of d1*d2
# positions), looping over the features twice: the mean of squares, then the
# scaled values. The eps comes from the constructor, as in the Model.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, out_ptr, features, spatial, eps, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    block = tl.program_id(1)
    pos = block * BLOCK + tl.arange(0, BLOCK)
    mask = pos < spatial
    base = b * features * spatial
    acc = tl.zeros([BLOCK], tl.float32)
    for f in range(0, features):
        x = tl.load(x_ptr + base + f * spatial + pos, mask=mask, other=0.0)
        acc += x * x
    inv = 1.0 / tl.sqrt(acc / features + eps)
    for f in range(0, features):
        x = tl.load(x_ptr + base + f * spatial + pos, mask=mask, other=0.0)
        tl.store(out_ptr + base + f * spatial + pos, x * inv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        batch, features = x.shape[0], x.shape[1]
        spatial = x.numel() // (batch * features)
        grid = (batch, triton.cdiv(spatial, 1024))
        rmsnorm_kernel[grid](x, out, features, spatial, self.eps, BLOCK=1024)
        return out
