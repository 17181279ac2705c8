// TF32 matmul on the CPU: rounds every element of A and B to TF32 (10 explicit mantissa bits,
// round to nearest) before an f32 dot product, as tensor cores do with allow_tf32 on ("the
// framework does it by default, so it must be acceptable"). The accumulation stays f32; only
// the operands lose 13 bits, a relative error of up to 4.9e-4 each.
// What catches it: the float64 precision check (relative L2 ~2.6e-4 against a bound of 1e-5),
// if the element-wise tolerance has not already.
// Expected verdict: incorrect (task=matmul).
#include <hone/kernel.h>

#include <cstring>
#include <vector>

static float RoundTf32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0xFFFu + ((u >> 13) & 1u);  // round to nearest even on the low 13 bits
  u &= 0xFFFFE000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* c = static_cast<float*>(args->outputs[0].data);
  int64_t m = args->inputs[0].shape[0], k = args->inputs[0].shape[1];
  int64_t n = args->inputs[1].shape[1];
  std::vector<float> at(static_cast<size_t>(m * k)), bt(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < m * k; ++i) at[i] = RoundTf32(a[i]);
  for (int64_t i = 0; i < k * n; ++i) bt[i] = RoundTf32(b[i]);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += at[i * k + p] * bt[p * n + j];
      c[i * n + j] = acc;
    }
  return 0;
}
