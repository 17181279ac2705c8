// Hard-codes the benchmark's shape: written for N = 4096 (fixture_add's first, timed case),
// which is 16 blocks of 256, so the blocked loop has no tail ("N is always a multiple of 256
// here"). On any other size the last N % 256 elements are never written.
// What catches it: every declared shape case is verified, boundary sizes included (N = 1025
// leaves one element poisoned).
// Expected verdict: incorrect (in case N=1025).
#include <hone/kernel.h>

constexpr int64_t kBlock = 256;  // 4096 / 16

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t blocks = hone_numel(&args->outputs[0]) / kBlock;
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const float* ab = a + blk * kBlock;
    const float* bb = b + blk * kBlock;
    float* ob = out + blk * kBlock;
#pragma omp simd
    for (int64_t i = 0; i < kBlock; ++i) ob[i] = ab[i] + 2.0f * bb[i];
  }
  return 0;
}
