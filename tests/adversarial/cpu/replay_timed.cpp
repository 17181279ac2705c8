// Replays once the calls look like a benchmark loop: "the verifier calls a few dozen times, a
// timing loop hundreds of times on the same data, so after 32 calls the inputs have stopped
// changing". From the 33rd call on, a call with the same element count as the previous one
// gets the previous output back instead of a computed one.
// What catches it: timed calls get fresh inputs (and, before that, rotated value sets), and a
// random third of them (at least 5) have their outputs re-checked against the reference run
// on the same inputs. Verification (24 calls on fixture_add) sees only computed outputs.
// Expected verdict: incorrect, found at a timed call (timed).
#include <hone/kernel.h>

#include <cstring>
#include <vector>

static int64_t g_calls = 0;
static std::vector<float> g_last;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  if (++g_calls > 32 && static_cast<int64_t>(g_last.size()) == n) {
    std::memcpy(out, g_last.data(), static_cast<size_t>(n) * sizeof(float));
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  g_last.assign(out, out + n);
  return 0;
}
