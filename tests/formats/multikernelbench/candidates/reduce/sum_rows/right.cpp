#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& in = args->inputs[0];
  const float* x = static_cast<const float*>(in.data);
  float* y = static_cast<float*>(args->outputs[0].data);
  for (int64_t r = 0; r < in.shape[0]; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < in.shape[1]; ++c) sum += x[r * in.shape[1] + c];
    y[r] = static_cast<float>(sum);
  }
  return 0;
}
