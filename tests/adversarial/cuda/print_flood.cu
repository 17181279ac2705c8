// Prints 8 MiB of text to stdout from the host on every call (a printf header, then fwrite of
// 64-byte lines), then launches the correct kernel on args->stream. Output to stdout is allowed;
// hone must drain or discard it without deadlocking on a full pipe or mixing it into its own
// protocol.
// Expected verdict: passed.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const size_t kTotal = size_t(8) << 20;
  static char line[64];
  std::memset(line, 'x', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  // Count what was attempted, not what was written, so a closed or failing stdout cannot turn
  // this into an endless loop.
  std::printf("%-63s\n", "print_flood: debug output");
  for (size_t done = sizeof line; done < kTotal; done += sizeof line)
    std::fwrite(line, 1, sizeof line, stdout);
  std::fflush(stdout);
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
