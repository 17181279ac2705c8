// Computes the correct out, then scribbles 64 KiB of garbage 4 MiB past its
// end (the case that once passed on attention, gelu and matmul): into
// another buffer set, or the canaries after the arena's last buffer.
// Expected verdict: runtime_error (the stray-write watch names what changed).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

__global__ void scribble(char* at, int64_t bytes) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    at[i] = 0x5A;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  scribble<<<64, 256, 0, stream>>>(reinterpret_cast<char*>(out + n) + (4 << 20), 64 << 10);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
