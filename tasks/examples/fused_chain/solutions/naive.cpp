// Naive fused_chain candidate: one scalar pass per element, no temporaries, no threads.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& xt = args->inputs[0];
  if (xt.dtype != HONE_F32) return 1;
  const float* x = static_cast<const float*>(xt.data);
  const float* scale = static_cast<const float*>(args->inputs[1].data);
  const float* bias = static_cast<const float*>(args->inputs[2].data);
  const float* residual = static_cast<const float*>(args->inputs[3].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t rows = xt.shape[0], n = xt.shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t e = r * n + i;
      float v = x[e] * scale[i] + bias[i];
      if (v < 0.0f) v = 0.0f;
      v += residual[e];
      if (v < -2.0f) v = -2.0f;
      if (v > 2.0f) v = 2.0f;
      out[e] = v;
    }
  }
  return 0;
}
