# A torch.compile decoy, as a newcomer's trial met one: forward runs the
# convolution (nearly all of the work) through torch.compile, so cuDNN does
# it, and the file's own Triton kernel only applies the ReLU and the bias.
# KernelBench's evaluator passed such a file as correct at 1.08x. Dynamo
# reads the file its module came from: the sandbox lets it (read-only), so
# the verdict names what the file does, not a PermissionError.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def relu_bias_kernel(x_ptr, bias_ptr, out_ptr, n_elements, plane, channels,
                     BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    b = tl.load(bias_ptr + (offsets // plane) % channels, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0) + b, mask=mask)


def _conv(x, weight, bias):
    return F.conv2d(x, weight, bias)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.compiled_conv = torch.compile(_conv)

    def forward(self, x):
        y = self.compiled_conv(x, self.conv.weight, self.conv.bias).contiguous()
        out = torch.empty_like(y)
        n = y.numel()
        plane = y.shape[2] * y.shape[3]
        grid = (triton.cdiv(n, 1024),)
        relu_bias_kernel[grid](y, self.bias, out, n, plane, y.shape[1], BLOCK_SIZE=1024)
        return out
