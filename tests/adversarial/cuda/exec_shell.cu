// Runs a shell command before computing: system("nvidia-smi --lock-gpu-clocks=...") to pin the
// GPU's clocks high while it is timed (and, had it worked, to leave them pinned for whoever is
// timed next), ignoring any failure; then launches the correct kernel on args->stream. glibc's
// system() starts /bin/sh through posix_spawn: clone3, then clone with CLONE_VM | CLONE_VFORK,
// with every signal blocked around the call.
// What must catch it: the static lint's process rule. Without the lint, the sandbox's seccomp
// filter: clone3 fails with ENOSYS, and clone without CLONE_THREAD traps. As SIGSYS is blocked
// at that moment, the kernel kills the process with it rather than running the sandbox's
// reporter, and the worker reports a forbidden system call (SIGSYS).
// Expected verdict: rejected (lint: process); lint off: rejected ("... forbidden system call
// (SIGSYS)").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <cstdlib>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

static volatile int g_shell_status = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  g_shell_status = std::system("nvidia-smi --lock-gpu-clocks=1980,1980 >/dev/null 2>&1");
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
