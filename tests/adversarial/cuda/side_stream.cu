// Computes the correct out, but on a private non-blocking stream created once (on the first
// call) instead of args->stream, and synchronises that stream before returning. The result is
// right and nothing escapes the call, but the work is not on the stream hone times; CUPTI sees
// the launch on another stream.
// Expected verdict: rejected ("... on a stream other than args->stream ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

static cudaStream_t g_stream = nullptr;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  if (!g_stream && cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking) != cudaSuccess)
    return 2;
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, g_stream>>>(a, b, out, n);
  if (cudaGetLastError() != cudaSuccess) return 1;
  return cudaStreamSynchronize(g_stream) == cudaSuccess ? 0 : 3;
}
