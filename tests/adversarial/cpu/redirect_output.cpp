// "Zero-copy" output: computes into a buffer of its own (kept between calls, so no allocation
// is timed) and points args->outputs[0].data at it instead of writing hone's output. hone
// compares the output memory it allocated, never what the descriptor points at afterwards, so
// that memory still holds the poison.
// What catches it: poisoned outputs (NaN in the first verification run).
// Expected verdict: incorrect (NaN where the reference is finite).
#include <hone/kernel.h>

#include <vector>

static std::vector<float> g_result;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  int64_t n = hone_numel(&args->outputs[0]);
  g_result.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) g_result[i] = a[i] + 2.0f * b[i];
  args->outputs[0].data = g_result.data();
  return 0;
}
