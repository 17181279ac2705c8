// Computes the correct out, then scribbles 64 KiB of garbage 4 MiB past its
// end: into another buffer set (which hone reloads before that set's own use,
// so no later check would see it) or the canaries after the arena's last
// buffer, which reach 8 MiB past it.
// Expected verdict: runtime_error (the stray-write watch names what changed).
#include <hone/kernel.h>

#include <cstring>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  char* past = reinterpret_cast<char*>(out + n) + (4 << 20);
  std::memset(past, 0x5A, 64 << 10);
  return 0;
}
