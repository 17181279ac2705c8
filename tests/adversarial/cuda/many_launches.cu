// Honest control: correct, but launch-bound. It computes out = a + 2 * b in 300
// small launches per call on args->stream (the shape of an RNN step loop or a
// layer-by-layer model), plus a cudaMemsetAsync on the stream first. Its host
// time per call is far larger than its GPU time; the hold kernel keeps that
// host time out of the events, and the worker-clock cross-check must allow it
// (10 us per launch) rather than call it a tampered timer.
// Expected verdict: passed, timed.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_slice(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ out, int64_t begin, int64_t end) {
  const int64_t i = begin + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < end) out[i] = a[i] + 2.0f * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  if (cudaMemsetAsync(out, 0, static_cast<size_t>(n) * sizeof(float), stream) != cudaSuccess)
    return 1;
  constexpr int64_t kLaunches = 300;
  const int64_t slice = (n + kLaunches - 1) / kLaunches;
  for (int64_t begin = 0; begin < n; begin += slice) {
    const int64_t end = begin + slice < n ? begin + slice : n;
    const unsigned blocks = static_cast<unsigned>((end - begin + 127) / 128);
    add2_slice<<<blocks, 128, 0, stream>>>(a, b, out, begin, end);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
