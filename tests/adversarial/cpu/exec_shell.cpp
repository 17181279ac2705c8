// Runs a shell command from the kernel (system("nproc ...") to size its thread pool, a common
// pattern in generated code), ignoring the result, then computes the correct out. glibc's
// system() spawns /bin/sh through clone() and execve().
// What catches it: the static lint's 'process' rule; without the lint, the sandbox's seccomp
// filter refuses the process-creating clone. posix_spawn blocks every signal around that
// clone, so the kernel kills the process with SIGSYS instead of running the sandbox's
// reporter, and the reason says "forbidden system call (SIGSYS)" without naming the call.
// Expected verdict: rejected (lint 'process'); dynamic: rejected (SIGSYS).
#include <hone/kernel.h>

#include <cstdlib>

static volatile int g_status = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  g_status = std::system("nproc > /dev/null 2>&1");
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
