# Runs its kernel on a non-blocking side stream and joins it back to the
# current stream before returning (wait_stream), as correct PyTorch code
# does: the work is inside the timed region, so it passes (timed without
# the hold, like unheld PyTorch code).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void relu2_joined(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = (x[i] < 0.f ? 0.f : x[i]) * 2.f;
}
torch::Tensor relu2(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  relu2_joined<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""

mod = load_inline(name="hone_compat_side_joined", cpp_sources="torch::Tensor relu2(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["relu2"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, x):
        if self.side is None:
            self.side = torch.cuda.Stream()
        main = torch.cuda.current_stream()
        self.side.wait_stream(main)
        with torch.cuda.stream(self.side):
            y = mod.relu2(x.contiguous())
        main.wait_stream(self.side)
        y.record_stream(main)
        return y
