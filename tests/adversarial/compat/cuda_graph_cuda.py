# Captures its kernel in a CUDA graph once (on a side stream, as
# torch.cuda.graph does) and replays it on the current stream with static
# buffers: honest work, replayed each call: passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void relu_scale_graph(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f) * 2.f;
}
void relu_scale_into(torch::Tensor x, torch::Tensor y) {
    int n = x.numel();
    relu_scale_graph<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
}
"""

ext = load_inline(name="hone_compat_cuda_graph", cpp_sources="void relu_scale_into(torch::Tensor x, torch::Tensor y);",
                  cuda_sources=cuda_source, functions=["relu_scale_into"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.graph = None

    def forward(self, x):
        if self.graph is None or self.static_x.shape != x.shape:
            self.static_x = torch.empty_like(x)
            self.static_y = torch.empty_like(x)
            self.static_x.copy_(x)
            ext.relu_scale_into(self.static_x, self.static_y)  # warm up before capture
            torch.cuda.synchronize()
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                ext.relu_scale_into(self.static_x, self.static_y)
        self.static_x.copy_(x)
        self.graph.replay()
        return self.static_y.clone()
