// Computes honestly for the first 24 calls (what verification of fixture_add takes: 2 cases x 3
// seeds x 2 distributions x 2 runs), saving each result per element count in a device buffer of
// its own; from then on it assumes it is being timed and only copies the last saved result of that
// size into out (with a kernel of its own, on args->stream).
// What must catch it: outputs of timed calls are re-checked against the reference on the same
// inputs (every warm-up call, a random third of the timed ones, at least 5), and timed inputs are
// fresh, so the replayed result is wrong. Had verification taken more calls, it would fail there.
// Expected verdict (timed): incorrect.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

constexpr int kHonestCalls = 24;

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

static Entry g_entries[16];
static int g_count = 0;
static long g_calls = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  Entry* e = nullptr;
  for (int k = 0; k < g_count; ++k)
    if (g_entries[k].n == n) e = &g_entries[k];
  if (++g_calls > kHonestCalls && e) {
    replay_kernel<<<blocks, 256, 0, stream>>>(e->saved, out, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  if (!e) {
    float* saved = nullptr;
    if (g_count == 16 || cudaMalloc(&saved, static_cast<size_t>(n) * sizeof(float)) != cudaSuccess)
      return 2;
    g_entries[g_count] = Entry{n, saved};
    e = &g_entries[g_count++];
  }
  add2_save_kernel<<<blocks, 256, 0, stream>>>(a, b, out, e->saved, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
