// host_compute.cu with the copies on a stream of its own (created on the first call, non-blocking)
// instead of the legacy default stream: cudaMemcpyAsync of a and b to the host, a
// synchronisation of that stream, out = a + 2 * b on the CPU, cudaMemcpyAsync back, another
// synchronisation, then one token kernel on args->stream for the launch tracking. (The copies
// cannot go on args->stream: in a timed call they would queue behind hone's hold of the stream
// and hone_forward would wait for them.)
// What must catch it: the static lint's stream rule (it creates a stream). Without the lint,
// the copy watch: copies during hone_forward on a stream other than args->stream.
// Expected verdict: rejected (lint: stream); lint off: rejected ("... stream ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <vector>

__global__ void token_kernel(float* __restrict__ out, int64_t n) {
  if (threadIdx.x == 0 && n > 0) out[0] = out[0];  // touches the output, changes nothing
}

static cudaStream_t g_copies = nullptr;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  if (!g_copies && cudaStreamCreateWithFlags(&g_copies, cudaStreamNonBlocking) != cudaSuccess)
    return 2;
  std::vector<float> ha(static_cast<size_t>(n)), hb(static_cast<size_t>(n)),
      ho(static_cast<size_t>(n));
  if (cudaMemcpyAsync(ha.data(), a, bytes, cudaMemcpyDeviceToHost, g_copies) != cudaSuccess ||
      cudaMemcpyAsync(hb.data(), b, bytes, cudaMemcpyDeviceToHost, g_copies) != cudaSuccess ||
      cudaStreamSynchronize(g_copies) != cudaSuccess)
    return 3;
  for (int64_t i = 0; i < n; ++i) ho[i] = ha[i] + 2.0f * hb[i];
  if (cudaMemcpyAsync(out, ho.data(), bytes, cudaMemcpyHostToDevice, g_copies) != cudaSuccess ||
      cudaStreamSynchronize(g_copies) != cudaSuccess)
    return 4;
  token_kernel<<<1, 32, 0, static_cast<cudaStream_t>(args->stream)>>>(out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
