# Computes the right answer on the current stream, and also leaves a long
# kernel running on a side stream it never waits for: work that outlives the
# call, outside the timed region. Rejected.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void relu_scale_now(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x[i] < 0.f ? 0.f : x[i]) * 2.f;
}
__global__ void busy_later(float* sink, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  if (threadIdx.x == 0 && sink) sink[0] += 1.f;
}
torch::Tensor run(torch::Tensor x, torch::Tensor sink, int64_t side) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  relu_scale_now<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), n);
  busy_later<<<1, 32, 0, reinterpret_cast<cudaStream_t>(side)>>>(sink.data_ptr<float>(), 20000000LL);
  return y;
}
"""

ext = load_inline(name="hone_compat_work_after_return",
                  cpp_sources="torch::Tensor run(torch::Tensor x, torch::Tensor sink, int64_t side);",
                  cuda_sources=cuda_source, functions=["run"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None
        self.sink = None

    def forward(self, x):
        if self.side is None:
            self.side = torch.cuda.Stream()
            self.sink = torch.zeros(1, device=x.device)
        return ext.run(x.contiguous(), self.sink, self.side.cuda_stream)
