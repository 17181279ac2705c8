// Rewrites its argument block: points args->outputs[0].data at input a and computes in place,
// a[i] = a[i] + 2 * b[i], hoping the caller reads the result back through args->outputs (and
// saving the output buffer's bandwidth). The real output is never written.
// What must catch it: the sandbox hands the candidate fresh copies of the tensor descriptors and
// the worker reads the output it allocated, which still holds the poison; the worker also finds
// input a modified. Later calls are given the true output address again.
// Expected verdict: incorrect (input modified, or the output unwritten).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  args->outputs[0].data = args->inputs[0].data;  // "the result now lives in a"
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
