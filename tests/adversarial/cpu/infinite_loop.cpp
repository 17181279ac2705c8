// Computes the correct out, then spins forever incrementing a volatile counter (every
// iteration is a volatile access, so the optimiser cannot remove or shorten the loop).
// Expected verdict: timeout.
#include <hone/kernel.h>

static volatile uint64_t g_counter = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  for (;;) g_counter = g_counter + 1;
}
