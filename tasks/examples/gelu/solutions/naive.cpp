// Straightforward gelu candidate (tanh approximation), f32 only.
#include <hone/kernel.h>

#include <cmath>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  int64_t n = hone_numel(&x);
  for (int64_t i = 0; i < n; ++i) {
    float v = xp[i];
    float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    yp[i] = 0.5f * v * (1.0f + std::tanh(u));
  }
  return 0;
}
