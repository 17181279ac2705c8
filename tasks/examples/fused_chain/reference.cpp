// Reference for fused_chain: out = clamp(relu(x * scale + bias) + residual, -2, 2), where scale
// and bias broadcast over the rows of x. It runs the way an eager framework would: one pass per
// operator, each writing a full-size temporary (five passes, four temporaries).
#include <hone/kernel.h>

#include <vector>

template <typename T>
static void chain(const T* x, const T* scale, const T* bias, const T* residual, T* out,
                  int64_t rows, int64_t n) {
  const int64_t total = rows * n;
  std::vector<T> t1(total), t2(total), t3(total), t4(total);
  for (int64_t r = 0; r < rows; ++r)  // t1 = x * scale
    for (int64_t i = 0; i < n; ++i) t1[r * n + i] = x[r * n + i] * scale[i];
  for (int64_t r = 0; r < rows; ++r)  // t2 = t1 + bias
    for (int64_t i = 0; i < n; ++i) t2[r * n + i] = t1[r * n + i] + bias[i];
  for (int64_t e = 0; e < total; ++e) t3[e] = t2[e] > T(0) ? t2[e] : T(0);  // t3 = relu(t2)
  for (int64_t e = 0; e < total; ++e) t4[e] = t3[e] + residual[e];          // t4 = t3 + residual
  for (int64_t e = 0; e < total; ++e)  // out = clamp(t4, -2, 2)
    out[e] = t4[e] < T(-2) ? T(-2) : (t4[e] > T(2) ? T(2) : t4[e]);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& scale = args->inputs[1];
  const hone_tensor& bias = args->inputs[2];
  const hone_tensor& residual = args->inputs[3];
  hone_tensor& out = args->outputs[0];
  const int64_t rows = x.shape[0], n = x.shape[1];
  if (x.dtype == HONE_F32)
    chain(static_cast<const float*>(x.data), static_cast<const float*>(scale.data),
          static_cast<const float*>(bias.data), static_cast<const float*>(residual.data),
          static_cast<float*>(out.data), rows, n);
  else if (x.dtype == HONE_F64)
    chain(static_cast<const double*>(x.data), static_cast<const double*>(scale.data),
          static_cast<const double*>(bias.data), static_cast<const double*>(residual.data),
          static_cast<double*>(out.data), rows, n);
  else
    return 1;
  return 0;
}
