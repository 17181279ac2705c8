// Writes through a null pointer. The pointer is read from a volatile variable so the compiler
// cannot see that it is null and turn the store into a trap (which would raise SIGILL).
// Expected verdict: runtime_error (SIGSEGV).
#include <hone/kernel.h>

static float* volatile g_scratch = nullptr;  // "forgot to allocate the scratch buffer"

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  float* scratch = g_scratch;
  for (int64_t i = 0; i < n; ++i) scratch[i] = 2.0f * b[i];
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + scratch[i];
  return 0;
}
