// Computes the correct out, then uses input a as scratch space and leaves garbage in it
// (every element of a is overwritten with 1e30f, a value no distribution produces).
// Expected verdict: incorrect (input modified).
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  float* a = static_cast<float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  for (int64_t i = 0; i < n; ++i) a[i] = 1e30f;
  return 0;
}
