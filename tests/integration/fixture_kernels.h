// Kernels of tests/integration/fixture_add (out = a + 2 b, f32) that the
// search tests' fake LLM replies with: one that does not compile, one that
// is correct but slow, and the adversarial catalogue's correct one, as fast
// as the reference.
#pragma once

#include <string>

#include "core/fs.h"
#include "support/source_dir.h"

namespace hone::testing {

inline const char* kBroken = R"(#include <hone/kernel.h>
HONE_EXPORT int hone_forward(const hone_args* args) { this does not compile; }
)";

// Correct, and about 50 times slower than it needs to be.
inline const char* kSlow = R"(#include <hone/kernel.h>
HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  volatile float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int rep = 0; rep < 50; ++rep)
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
)";

// Correct and as fast as the reference.
inline std::string FastKernel() {
  return ReadFile(SourceDir() / "tests/adversarial/cpu/correct.cpp").value();
}

}  // namespace hone::testing
