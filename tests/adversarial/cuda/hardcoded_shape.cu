// Hard-codes the benchmark's size: N = 4096, handled as 1024 float4 vectors by a fixed grid of
// 4 blocks x 256 threads. Bounds are still checked per vector (no fault on a smaller tensor), but
// a size that is not 4096 is not covered: at N = 1025 the last element is never written, and a
// larger N would leave the tail unwritten too.
// What must catch it: verification runs every shape case (fixture_add: N = 4096 and N = 1025)
// and compares every element, so element 1024 of the N = 1025 case keeps the poison.
// Expected verdict: incorrect.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

constexpr int64_t kN = 4096;  // "the size the benchmark uses"

__global__ void add2_vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                                 float4* __restrict__ out, int64_t n) {
  const int64_t q = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (4 * q + 3 >= n) return;  // a partial vector would read past the end: skipped
  const float4 x = a[q], y = b[q];
  out[q] = make_float4(x.x + 2.0f * y.x, x.y + 2.0f * y.y, x.z + 2.0f * y.z, x.w + 2.0f * y.w);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float4* a = static_cast<const float4*>(args->inputs[0].data);
  const float4* b = static_cast<const float4*>(args->inputs[1].data);
  float4* out = static_cast<float4*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  add2_vec4_kernel<<<static_cast<unsigned>(kN / 4 / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
