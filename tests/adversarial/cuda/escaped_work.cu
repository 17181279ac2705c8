// Launches the correct kernel on args->stream, then a one-warp busy kernel that spins for about
// 1e8 clock cycles (~50 ms at Hopper clocks) on a private non-blocking stream, created once,
// WITHOUT synchronising it: work that is still running on the GPU after args->stream finished.
// hone's CUPTI tracking sees the launch on another stream before it gets to the device-wide
// synchronisation that would time the escaped work, so the reason is the side-stream rule.
// Expected verdict: rejected ("... on a stream other than args->stream ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

__global__ void busy_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

static cudaStream_t g_side = nullptr;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (!g_side && cudaStreamCreateWithFlags(&g_side, cudaStreamNonBlocking) != cudaSuccess) return 2;
  if (n > 0) add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  busy_kernel<<<1, 32, 0, g_side>>>(100000000LL);  // left running: never synchronised
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
