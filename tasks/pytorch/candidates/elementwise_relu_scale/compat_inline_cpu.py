import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>

torch::Tensor relu_scale_cpu(torch::Tensor x) {
  TORCH_CHECK(x.device().is_cpu(), "x must be a CPU tensor");
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
  torch::Tensor xc = x.contiguous();
  torch::Tensor y = torch::empty_like(xc);
  const float* xp = xc.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  const int64_t n = xc.numel();
  for (int64_t i = 0; i < n; ++i) {
    const float v = xp[i] < 0.0f ? 0.0f : xp[i];
    yp[i] = v * 2.0f;
  }
  return y;
}
"""

relu_scale = load_inline(
    name="hone_compat_relu_scale_cpu",
    cpp_sources=cpp_source,
    functions=["relu_scale_cpu"],
    verbose=False,
)


class ModelNew(nn.Module):
    """C++ CPU extension, correct: relu(x) * 2 in one loop."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.relu_scale = relu_scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu_scale.relu_scale_cpu(x)
