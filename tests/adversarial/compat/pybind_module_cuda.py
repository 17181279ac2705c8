# Binds its function with its own PYBIND11_MODULE in cpp_sources (no
# functions= argument): passes.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = """
torch::Tensor relu_scale(torch::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("relu_scale", &relu_scale, "relu(x) * 2");
}
"""

cuda_source = """
#include <torch/extension.h>
__global__ void relu_scale_pybind(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f) * 2.f;
}
torch::Tensor relu_scale(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_scale_pybind<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="hone_compat_pybind_module", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_scale(x.contiguous())
