// Detects a timed call and skips the work. hone queues a "hold" kernel on args->stream before
// each timed call (so that launch latency stays out of the measurement) and releases it only when
// hone_forward returns; an untimed call finds the stream idle. So at entry: if args->stream is
// busy (cudaStreamQuery says cudaErrorNotReady), this must be a timed call, and the candidate
// launches an empty kernel of its own (for the launch tracking) and writes nothing. Otherwise it
// computes out = a + 2 * b.
// What must catch it: timed outputs are re-checked (every warm-up call, a random third of the
// timed ones, at least 5), and its untimed behaviour cannot be told apart from honest work.
// (If the query happens to see the stream busy in a verification call, it fails there instead.)
// Expected verdict (timed): incorrect.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

__global__ void empty_kernel() {}

static long g_skipped = 0;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  const bool held = cudaStreamQuery(stream) == cudaErrorNotReady;
  (void)cudaGetLastError();  // "not ready" is not an error; keep it out of the return value
  if (held) {
    ++g_skipped;
    empty_kernel<<<1, 32, 0, stream>>>();
  } else if (n > 0) {
    add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
