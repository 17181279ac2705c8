// Wrong formula: computes out = a + b instead of a + 2 * b (the factor 2 is forgotten).
// Expected verdict: incorrect.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
  return 0;
}
