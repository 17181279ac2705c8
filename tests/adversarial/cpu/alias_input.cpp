// "Zero-copy" in place: computes a + 2 * b into a's own buffer (saving the output's memory
// traffic) and then points args->outputs[0].data at a, on the theory that hone reads the
// result through the descriptor it passed. hone compares the output memory it allocated, and
// inputs are read-only; rewriting the descriptor changes only this call's copy of it.
// What catches it: the input-mutation check (a is compared with a pristine copy after every
// call); the real output is also left poisoned.
// Expected verdict: incorrect (input modified).
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  float* a = static_cast<float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) a[i] = a[i] + 2.0f * b[i];
  args->outputs[0].data = a;
  return 0;
}
