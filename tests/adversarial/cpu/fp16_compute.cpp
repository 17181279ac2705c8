// Computes in half precision: converts a and b to _Float16, evaluates a + 2 * b in _Float16
// ("half the bytes, twice the SIMD lanes") and widens the result back to float. The task's
// output is f32, so its tolerance is f32's: fp16 keeps 11 significant bits, a relative error
// of up to 4.9e-4 per rounding.
// What catches it: the f32 tolerance (atol 1e-4, rtol 1e-4) and the float64 precision check.
// Expected verdict: incorrect.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) {
    _Float16 x = static_cast<_Float16>(a[i]);
    _Float16 y = static_cast<_Float16>(b[i]);
    _Float16 r = x + static_cast<_Float16>(2) * y;
    out[i] = static_cast<float>(r);
  }
  return 0;
}
