// Asks the C library for the CPU count (glibc reads /sys) and opens /proc/cpuinfo, then
// mallocs in 16 threads: legitimate library behaviour that must not be rejected.
// Expected verdict: passed.
#include <hone/kernel.h>

#include <cstdio>
#include <thread>
#include <vector>
HONE_EXPORT int hone_forward(const hone_args* args) {
  unsigned hc = std::thread::hardware_concurrency();
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f) std::fclose(f);
  const float* a = (const float*)args->inputs[0].data;
  const float* b = (const float*)args->inputs[1].data;
  float* o = (float*)args->outputs[0].data;
  long n = hone_numel(&args->outputs[0]);
#pragma omp parallel for num_threads(16)
  for (long i = 0; i < n; ++i) {
    std::vector<float> tmp(64 + hc);
    tmp[0] = a[i] + 2 * b[i];
    o[i] = tmp[0];
  }
  return 0;
}
