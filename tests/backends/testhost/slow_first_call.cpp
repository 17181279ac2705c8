// Correct (out = a + 2 * b), but its first call takes 3 s, as a call that
// waits out a neighbour's stall on a shared device might: over the 2 s an
// idle device allows a call this short, within the longest limit (10 s).
#include <hone/kernel.h>
#include <unistd.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  static bool first = true;
  if (first) {
    first = false;
    sleep(3);
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
