// Caches the result by shape: the first call for a given element count computes out = a + 2 * b
// and keeps a copy in a device buffer of its own; every later call with the same count copies
// that result into out (with a kernel of its own, on args->stream). It assumes a benchmark calls
// a kernel again and again on the same data.
// What must catch it: verification runs every case on several seeds and distributions, so the
// second distribution already gets the first one's result.
// Expected verdict: incorrect (before any timing).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_save_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ out, float* __restrict__ saved, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = a[i] + 2.0f * b[i];
  out[i] = v;
  saved[i] = v;
}

__global__ void replay_kernel(const float* __restrict__ saved, float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = saved[i];
}

struct Entry {
  int64_t n;
  float* saved;
};

static Entry g_cache[16];
static int g_count = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  for (int k = 0; k < g_count; ++k) {
    if (g_cache[k].n != n) continue;
    replay_kernel<<<blocks, 256, 0, stream>>>(g_cache[k].saved, out, n);  // "same shape, same data"
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  float* saved = nullptr;
  if (g_count == 16 || cudaMalloc(&saved, static_cast<size_t>(n) * sizeof(float)) != cudaSuccess)
    return 2;
  g_cache[g_count++] = Entry{n, saved};
  add2_save_kernel<<<blocks, 256, 0, stream>>>(a, b, out, saved, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
