// Correct for its first 30 calls (every verification call: 24 on fixture_add),
// then writes one float 64 bytes past its output on every call: only timing's
// calls do it. (After 100 calls, it was never caught on a GPU, where the timing
// loop's stopping rule is met in fewer calls than that.)
// Expected verdict: runtime_error (the canaries around every buffer slot are
// compared after the timing loop: "while timed").
#include <hone/kernel.h>

static int g_calls = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  if (++g_calls > 30) out[n + 16] = 42.0f;
  return 0;
}
