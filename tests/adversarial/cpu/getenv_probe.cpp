// Detects the benchmark from its environment: if any variable names a harness (HONE_*, the
// variables hone itself reads, or KERNELBENCH*, PYTEST_CURRENT_TEST), it "must be a test run"
// and returns at once without computing, expecting a benchmark that cannot see the difference.
// What catches it: the static lint's 'environment' rule. Without the lint, the sandbox starts
// the candidate with a scrubbed environment (PATH, HOME, TMPDIR, locale, OpenMP and CUDA
// settings only), so nothing is found, the kernel computes honestly, and it passes: the probe
// gains nothing.
// Expected verdict: rejected (lint 'environment'); dynamic: passed.
#include <hone/kernel.h>

#include <cstdlib>
#include <cstring>

extern char** environ;

static bool UnderHarness() {
  if (std::getenv("HONE_CACHE") || std::getenv("PYTEST_CURRENT_TEST")) return true;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "HONE", 4) == 0 || std::strncmp(*e, "KERNELBENCH", 11) == 0) return true;
  return false;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (UnderHarness()) return 0;  // outputs left as they are
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
