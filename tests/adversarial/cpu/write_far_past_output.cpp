// Computes the correct out, then scribbles 64 KiB of garbage 4 MiB past its
// end when the arena reaches that far (into another buffer set, which hone
// reloads before that set's own use, so no later check would see it).
// Expected verdict: runtime_error (the stray-write watch names the buffer).
#include <hone/kernel.h>

#include <cstring>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  // The last input set's slot lies past this set's output; its start is as
  // far as a stray write can go and stay in the arena on every fixture case.
  char* past = reinterpret_cast<char*>(out + n) + 512;
  std::memset(past, 0x5A, 256);
  return 0;
}
