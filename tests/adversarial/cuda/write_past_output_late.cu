// Correct for its first 30 calls (every verification call: 24 on fixture_add),
// then one thread writes one float 64 bytes past its output on every call:
// only timing's calls do it. (After 100 calls, it was never caught on the
// H200: the timing loop's stopping rule was met in fewer calls than that.)
// Expected verdict: runtime_error (the canaries around every buffer slot are
// compared after the timing loop: "while timed").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

static int g_calls = 0;

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n, int stray) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
  if (stray && i == 0) out[n + 16] = 42.0f;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n,
                                                                          ++g_calls > 30);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
