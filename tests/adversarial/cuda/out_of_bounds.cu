// Index bug: every thread writes out[i + offset] with offset = 2^32 elements (16 GiB past the
// start of out), far outside any allocation. The offset is read from a volatile host variable and
// passed as a launch argument, so the compiler cannot drop or fold the store. The GPU's MMU
// faults on the unmapped address: cudaErrorIllegalAddress, a sticky error.
// Expected verdict: runtime_error ("CUDA error during the call: an illegal memory access ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

static volatile int64_t g_offset = (int64_t(1) << 34) / 4;  // in floats: 16 GiB

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n, int64_t offset) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i + offset] = a[i] + 2.0f * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n, g_offset);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
