# Two kernels of its own as in several_kernels_cuda.py, but the first of its two kernels
# (relu) reads its input 256 floats past its end (the last thread, times zero, so the
# compiler keeps the load). Its results are right, so only compute-sanitizer's memcheck
# sees it (runtime_error, with --sanitize). With several_kernels_oob_read_last_cuda.py it
# shows that each of a file's kernels is checked, not one alone. 1 KiB past a tensor is
# past the 512 bytes torch may round it up to, and within the padding memcheck puts after
# each allocation.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
__global__ void relu_only(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f) + (i == n - 1 ? 0.f * x[i + 256] : 0.f);
}
__global__ void scale_only(const float* x, float* y, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * s;
}
torch::Tensor relu_then_scale(torch::Tensor x) {
    auto t = torch::empty_like(x);
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_only<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), t.data_ptr<float>(), n);
    scale_only<<<(n + 255) / 256, 256>>>(t.data_ptr<float>(), y.data_ptr<float>(), 2.f, n);
    return y;
}
"""

ext = load_inline(name="hone_compat_several_kernels_oob_read_first",
                  cpp_sources="torch::Tensor relu_then_scale(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["relu_then_scale"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_then_scale(x.contiguous())
