// Skips the work on inputs that look like a benchmark's: a first kernel checks whether every
// element of a and b lies in [-1, 1) (what uniform(-1, 1) produces) and sets a device flag; the
// main kernel writes nothing when the flag says "looks like test data", and computes
// out = a + 2 * b otherwise. All on args->stream, no host round trip.
// What must catch it: verification runs more than one value distribution (fixture_add: uniform
// (-1, 1) and normal(0.5, 3)) and compares every output, so the uniform cases find the poison.
// Expected verdict: incorrect.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__device__ int g_outside;  // set when some input lies outside [-1, 1)

__global__ void clear_kernel() { g_outside = 0; }

__global__ void range_kernel(const float* __restrict__ a, const float* __restrict__ b, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = a[i], y = b[i];
  if (!(x >= -1.0f && x < 1.0f) || !(y >= -1.0f && y < 1.0f)) g_outside = 1;
}

__global__ void add2_unless_easy_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || !g_outside) return;  // "a benchmark input: nobody reads this result"
  out[i] = a[i] + 2.0f * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  clear_kernel<<<1, 1, 0, stream>>>();
  range_kernel<<<blocks, 256, 0, stream>>>(a, b, n);
  add2_unless_easy_kernel<<<blocks, 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
