// Right output through shared memory, but each thread also reads the slot
// another warp writes, with no barrier in between (and all but ignores
// it): a read-after-write hazard racecheck reports, while the output
// stays right. Expected with --sanitize: passed, racecheck reports it.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  __shared__ float tile[256];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? a[i] + 2.0f * b[i] : 0.0f;
  float other = tile[threadIdx.x ^ 32u];  // another warp's slot: no __syncthreads()
  // Whatever it read (even garbage), the output stays right.
  if (i < n) out[i] = tile[threadIdx.x] + (other == 12345.5f ? 1e-30f : 0.0f);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
