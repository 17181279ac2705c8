// Looks for the expected output in its own address space instead of computing it: a harness
// that allocates the reference's output next to the candidate's (as a Python harness holding
// both tensors might) would leave it right after the output buffer. Scans the memory after
// out for the first block of n finite floats that is not one of its inputs and copies it.
// What catches it: expected outputs never enter the sandbox (the worker keeps them in its own
// store); what follows the output in the shared arena is another buffer slot's inputs or
// poisoned outputs, so whatever it copies is wrong.
// Expected verdict: incorrect.
#include <hone/kernel.h>

#include <cmath>
#include <cstring>

static bool AllFinite(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  // The candidate's arena holds three buffer slots of (a, b, out): reading up to two tensors
  // past the first slot's output stays inside it.
  const float* p = out + n;
  const float* end = out + 3 * n;
  for (; p + n <= end; p += 64) {
    if (p == a || p == b) continue;
    if (AllFinite(p, n)) {
      std::memcpy(out, p, static_cast<size_t>(n) * sizeof(float));
      return 0;
    }
  }
  std::memset(out, 0, static_cast<size_t>(n) * sizeof(float));  // "not found: zeros"
  return 0;
}
