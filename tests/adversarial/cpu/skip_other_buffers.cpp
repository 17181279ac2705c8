// Computes only for the buffer address it saw first (where verification
// runs) and skips the work for every other address. Timing rotates inputs
// through several buffer slots and re-checks timed outputs at random, so the
// skipped work is found.
// Expected verdict: incorrect (only when timed; verification alone cannot see it).
#include <hone/kernel.h>

static const void* g_first = nullptr;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  if (!g_first) g_first = a;
  if (a != g_first) return 0;  // outputs stay poisoned
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2 * b[i];
  return 0;
}
