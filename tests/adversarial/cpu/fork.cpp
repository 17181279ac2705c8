// Forks a child process (which exits at once), waits for it, then computes the correct out.
// If the sandbox let fork() through, this would pass; it must instead be stopped.
// Expected verdict: rejected (process creation; glibc's fork() issues the clone syscall).
#include <hone/kernel.h>
#include <sys/wait.h>
#include <unistd.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, nullptr, 0);
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
