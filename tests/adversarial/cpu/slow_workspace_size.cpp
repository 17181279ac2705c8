// Honest, with a slow hone_workspace_bytes: sizing its workspace takes about
// 10-30 ms of CPU time (standing in for what freeing and making a large
// workspace costs on a virtual machine, where page-table work is dear). That
// time is the binding's, between calls but not after one: it must not count
// as work left running after hone_forward returned.
// Expected verdict: passed.
#include <hone/kernel.h>

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t /*num_inputs*/) {
  volatile double sink = 0;
  for (int i = 0; i < 10000000; ++i) sink = sink * 1.0000001 + 1e-9;
  return static_cast<size_t>(hone_numel(&inputs[0])) * sizeof(float);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  float* scratch = static_cast<float*>(args->workspace);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) scratch[i] = 2.0f * b[i];
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + scratch[i];
  return 0;
}
