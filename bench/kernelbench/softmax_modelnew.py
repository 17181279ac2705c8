# A ModelNew for KernelBench level1/23_Softmax.py in the style of published
# generations: one block per row, shared-memory reductions, a try/except
# around the build that falls back to PyTorch (hone reports such a fallback
# as "no kernel of its own" when the build fails), launched on the legacy
# default stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

__global__ void softmax_kernel(const float* x, float* y, int rows, int cols) {
    extern __shared__ float buf[];
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    buf[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    m = buf[0];
    __syncthreads();
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(xr[c] - m);
    buf[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.f / buf[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = __expf(xr[c] - m) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int rows = x.size(0), cols = x.size(1);
    int threads = 1024;
    softmax_kernel<<<rows, threads, threads * sizeof(float)>>>(x.data_ptr<float>(),
                                                               y.data_ptr<float>(), rows, cols);
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

try:
    softmax_ext = load_inline(name="softmax_ext", cpp_sources=softmax_cpp_source,
                              cuda_sources=softmax_source, functions=["softmax_cuda"],
                              verbose=False)
except Exception:
    softmax_ext = None


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        if softmax_ext is None:
            return torch.softmax(x, dim=1)
        return softmax_ext.softmax_cuda(x.contiguous())
