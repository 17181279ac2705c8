// Computes out = a + 2 * b only the first time it sees an output buffer; on every later call with
// the same output address it launches a kernel that does nothing, assuming the buffer still holds
// its earlier result ("the output did not move, so it is still valid").
// What must catch it: outputs are poisoned before every call (NaN, then 0x5A bytes), so the
// second run on the same inputs already finds poison.
// Expected verdict: incorrect.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

__global__ void nothing_kernel(const float* __restrict__ out, int64_t n) {
  (void)out;
  (void)n;
}

static const void* g_written[64];
static int g_count = 0;

static bool WrittenBefore(const void* out) {
  for (int i = 0; i < g_count; ++i)
    if (g_written[i] == out) return true;
  if (g_count < 64) g_written[g_count++] = out;
  return false;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  if (WrittenBefore(out))
    nothing_kernel<<<1, 32, 0, stream>>>(out, n);
  else
    add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
