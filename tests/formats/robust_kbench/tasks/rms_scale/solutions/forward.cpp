// A CPU kernel in robust-kbench's candidate form: forward takes
// forward_fn's arguments (the input, then the weight, then eps as a double).
#include <torch/extension.h>

#include <cmath>

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, double eps) {
  auto xc = x.contiguous();
  auto wc = weight.contiguous();
  auto out = torch::empty_like(xc);
  const int64_t rows = xc.size(0), cols = xc.size(1);
  const float* px = xc.data_ptr<float>();
  const float* pw = wc.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += double(px[r * cols + c]) * px[r * cols + c];
    const float inv = 1.0f / std::sqrt(float(sum / cols) + float(eps));
    for (int64_t c = 0; c < cols; ++c) po[r * cols + c] = px[r * cols + c] * inv * pw[c];
  }
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "rms_scale forward"); }
