// Prints 8 MiB of text to stdout on every call (a printf header, then fwrite of 64-byte
// lines), then computes the correct out. Output to stdout is allowed; hone must drain or
// discard it without deadlocking on a full pipe or mixing it into its own protocol.
// Expected verdict: passed.
#include <hone/kernel.h>

#include <cstdio>
#include <cstring>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const size_t kTotal = size_t(8) << 20;
  static char line[64];
  std::memset(line, 'x', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  // Count what was attempted, not what was written, so a closed or failing stdout cannot
  // turn this into an endless loop.
  std::printf("%-63s\n", "print_flood: debug output");
  for (size_t done = sizeof line; done < kTotal; done += sizeof line)
    std::fwrite(line, 1, sizeof line, stdout);
  std::fflush(stdout);
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + 2.0f * b[i];
  return 0;
}
