// Caches the result by buffer address: the first call on a given (a, b, out) triple computes
// out = a + 2 * b and keeps a copy in the binding's workspace; every later call on the same
// addresses only copies that saved result into out (with a kernel of its own, on args->stream,
// so the launch tracking sees an honest-looking launch). It assumes that the same addresses
// hold the same values.
// What must catch it: verification reuses one buffer slot for every seed and distribution of a
// case (inputs restored, outputs poisoned before each call), so the second distribution already
// gets the first one's result; timed calls would too (fresh inputs in the same slots).
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

struct Key {
  const void *a, *b, *out;
  int64_t n;
};

static Key g_seen[64];
static int g_count = 0;

static bool SeenBefore(const Key& k) {
  for (int i = 0; i < g_count; ++i)
    if (g_seen[i].a == k.a && g_seen[i].b == k.b && g_seen[i].out == k.out && g_seen[i].n == k.n)
      return true;
  if (g_count < 64) g_seen[g_count++] = k;
  return false;
}

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t num_inputs) {
  return num_inputs > 0 ? static_cast<size_t>(hone_numel(&inputs[0])) * sizeof(float) : 0;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  float* saved = static_cast<float*>(args->workspace);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  if (!saved || args->workspace_bytes < static_cast<size_t>(n) * sizeof(float)) return 2;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  if (SeenBefore(Key{a, b, out, n}))
    replay_kernel<<<blocks, 256, 0, stream>>>(saved, out, n);
  else
    add2_save_kernel<<<blocks, 256, 0, stream>>>(a, b, out, saved, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
