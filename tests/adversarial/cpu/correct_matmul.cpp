// Correct candidate for the adversarial fixture 'matmul' (tests/adversarial/tasks/matmul):
// C = A @ B in f32, i-k-j loop order (each row of C accumulated as a sum of scaled rows of B,
// which vectorises), so the sums run in a different order from the reference's dot products
// but in full f32 precision. A sanity check of the fixture's tolerances.
// Expected verdict: passed.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* c = static_cast<float*>(args->outputs[0].data);
  int64_t m = args->inputs[0].shape[0], k = args->inputs[0].shape[1];
  int64_t n = args->inputs[1].shape[1];
  for (int64_t i = 0; i < m; ++i) {
    float* ci = c + i * n;
    for (int64_t j = 0; j < n; ++j) ci[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      float aip = a[i * k + p];
      const float* bp = b + p * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
  return 0;
}
