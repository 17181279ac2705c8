// Computes the correct out through a workspace of n floats, then writes one
// float just past the workspace's end (an off-by-one in scratch memory).
// Expected verdict: runtime_error (the workspace's canaries, checked by the
// sandbox after every call: "wrote outside its workspace ... byte 0 past its
// end").
#include <hone/kernel.h>

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t /*num_inputs*/) {
  return static_cast<size_t>(hone_numel(&inputs[0])) * sizeof(float);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  float* scratch = static_cast<float*>(args->workspace);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i <= n; ++i) scratch[i] = 2.0f * (i < n ? b[i] : 0.0f);  // one too many
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + scratch[i];
  return 0;
}
