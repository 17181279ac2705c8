// Opens /etc/passwd with fopen (an openat syscall after load) and reads it, ignoring any
// failure, then launches the correct kernel. Landlock alone would not reject it (a denied read
// only fails with EACCES); the post-load seccomp rule against opening files must stop it.
// Expected verdict: rejected (open).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <cstdio>

static volatile size_t g_bytes_read = 0;

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (std::FILE* f = std::fopen("/etc/passwd", "r")) {
    char buf[4096];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) g_bytes_read = g_bytes_read + got;
    std::fclose(f);
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
