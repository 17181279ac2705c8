// Lazy no-op: "the output buffer is reused between calls, so once it holds the answer there is
// nothing left to do". Writes the output only on the first call for each output address and
// returns at once on every later call, relying on what the buffer held before.
// What catches it: outputs are poisoned before every call (NaN, then the 0x5A sentinel for the
// second verification run of the same inputs), so the second run finds the sentinel.
// Expected verdict: incorrect.
#include <hone/kernel.h>

#include <set>

static std::set<void*> g_filled;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  if (!g_filled.insert(out).second) return 0;  // "already computed into this buffer"
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
