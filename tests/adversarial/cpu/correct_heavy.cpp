// Correct candidate for the adversarial fixture 'heavy' (tests/adversarial/tasks/heavy): the
// reference's loop in float, out[i] = sum_{k<64} sinf(a[i] * (k + 1) * 0.01f + b[i]). A sanity
// check of the fixture: it must pass, with a speedup near 1.
// Expected verdict: passed.
#include <hone/kernel.h>

#include <cmath>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = 0; k < 64; ++k) acc += std::sin(a[i] * float(k + 1) * 0.01f + b[i]);
    out[i] = acc;
  }
  return 0;
}
