// Wrong for negative inputs: MultiKernelBench draws with torch.rand (all
// values in [0, 1)), where this passes; hone's signed inputs find it.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* x = static_cast<const float*>(args->inputs[0].data);
  float* y = static_cast<float*>(args->outputs[0].data);
  for (int64_t i = 0; i < hone_numel(&args->inputs[0]); ++i) y[i] = x[i];
  return 0;
}
