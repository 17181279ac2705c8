// Reference for fixture_affine: y = 2 * x + 1, a plain loop.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* x = static_cast<const float*>(args->inputs[0].data);
  float* y = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) y[i] = 2.0f * x[i] + 1.0f;
  return 0;
}
