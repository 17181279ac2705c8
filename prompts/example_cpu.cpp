// A worked example for ANOTHER task, not the one you are asked to solve.
// That task: one input x (f32, any shape), one output y (f32, the same shape),
// y = 2 * x + 1 elementwise. The example shows the contract: check what hone
// passes, write every output element, finish before returning, return 0.
#include <hone/kernel.h>

#include <cstdint>

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 1;
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 2;  // the only dtype the task declares
  const int64_t n = hone_numel(&x);  // 1 for a 0-d tensor
  if (hone_numel(&y) != n) return 3;

  // hone passes contiguous row-major tensors, so the elements are data[0 .. n).
  const float* __restrict__ xp = static_cast<const float*>(x.data);
  float* __restrict__ yp = static_cast<float*>(y.data);
  // All cores for large tensors; the compiler vectorises the loop (-O3 -march=native).
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i) yp[i] = 2.0f * xp[i] + 1.0f;
  return 0;
}
