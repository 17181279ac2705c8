// Opens /etc/passwd with fopen (an openat syscall after load) and reads it, ignoring any
// failure, then computes the correct out. Landlock alone would allow the read (the file
// system is read-only, not hidden); the seccomp rule against opening files must stop it.
// Expected verdict: rejected (open).
#include <hone/kernel.h>

#include <cstdio>

static volatile size_t g_bytes_read = 0;

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
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
