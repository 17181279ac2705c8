// Computes the correct out through a workspace of n floats, but the kernel
// writes one float just past the workspace's end (an off-by-one in scratch
// memory). Expected verdict: runtime_error (the workspace's canaries,
// checked by the sandbox after every call: "wrote outside its workspace ...
// byte 0 past its end").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ scratch, float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    scratch[i] = 2.0f * b[i];
    out[i] = a[i] + scratch[i];
  }
  if (i == 0) scratch[n] = 0.0f;  // one too many
}

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t /*num_inputs*/) {
  return static_cast<size_t>(hone_numel(&inputs[0])) * sizeof(float);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  float* scratch = static_cast<float*>(args->workspace);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, scratch, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
