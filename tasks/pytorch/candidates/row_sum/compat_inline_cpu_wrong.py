import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
#include <torch/extension.h>

torch::Tensor row_sum_cpu(torch::Tensor x) {
  TORCH_CHECK(x.device().is_cpu(), "x must be a CPU tensor");
  TORCH_CHECK(x.dim() == 2 && x.scalar_type() == torch::kFloat32, "x must be 2-d float32");
  torch::Tensor xc = x.contiguous();
  const int64_t rows = xc.size(0), cols = xc.size(1);
  torch::Tensor y = torch::empty({rows}, xc.options());
  const float* xp = xc.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int64_t c = 0; c + 1 < cols; ++c) s += xp[r * cols + c];  // BUG: skips the last column
    yp[r] = static_cast<float>(s);
  }
  return y;
}
"""

row_sum = load_inline(
    name="hone_compat_row_sum_cpu_wrong",
    cpp_sources=cpp_source,
    functions=["row_sum_cpu"],
    verbose=False,
)


class ModelNew(nn.Module):
    """C++ CPU extension, WRONG: the row loop stops one column short."""

    def __init__(self):
        super(ModelNew, self).__init__()
        self.row_sum = row_sum

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.row_sum.row_sum_cpu(x)
