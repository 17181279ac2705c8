// Returns at once and does the work later: hone_forward starts a detached host thread and
// returns 0; the thread busy-waits 20 million counted iterations (tens of milliseconds, no
// clock call) and only then launches the correct kernel on args->stream. The idea: the timer
// stops when hone_forward returns, and the work lands afterwards.
// What must catch it: the static lint's host-thread rule. Without the lint, the launch
// tracking: when hone_forward returns and args->stream has drained (it was empty: nothing had
// been launched yet), no kernel of the candidate's has been launched in the call, so the call
// is rejected for launching no kernel of its own. (Had the launch slipped into the call, the
// outputs, read as soon as the stream finished, would still hold the poison: incorrect.)
// Expected verdict: rejected (lint: host-thread); lint off: rejected ("launched no kernel of
// its own").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <thread>

__global__ void add2_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 2.0f * b[i];
}

static void LaunchLater(const float* a, const float* b, float* out, int64_t n,
                        cudaStream_t stream) {
  for (volatile long spin = 0; spin < 20000000L; spin = spin + 1) {  // tens of ms
  }
  if (n > 0) add2_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  std::thread(LaunchLater, a, b, out, n, stream).detach();
  return 0;
}
