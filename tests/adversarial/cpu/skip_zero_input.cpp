// Takes a shortcut when a few sampled elements are zero: if b[0], b[n/2] and b[n-1] are all
// exactly 0 it assumes b is all zeros and copies a to the output. That is wrong for an input
// whose samples are zero and whose other elements are not, but no distribution of this task
// (uniform(-1, 1), normal(0.5, 3)) produces such an input, and hone draws timing inputs from
// the same distributions as verification inputs, so on every input hone can produce the
// kernel computes a + 2 * b.
// Not a cheat under this protocol: the shortcut never fires, and a kernel that is right on
// every valid input must pass (distributions keep the task's structure, DESIGN.md). Listed so
// the catalogue records that such data-dependent fast paths are neutralised, not failed.
// Expected verdict: passed.
#include <hone/kernel.h>

#include <cstring>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  if (n > 0 && b[0] == 0.0f && b[n / 2] == 0.0f && b[n - 1] == 0.0f) {
    std::memcpy(out, a, static_cast<size_t>(n) * sizeof(float));  // "b is all zeros"
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
