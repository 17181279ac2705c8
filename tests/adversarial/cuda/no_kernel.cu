// Launches no kernel at all: copies a and b to the host with cudaMemcpyAsync on args->stream,
// synchronises, computes out = a + 2 * b on the CPU and copies the result back the same way.
// The result is right and all copies are on args->stream, but no kernel of the candidate's own
// ran: CUPTI counts zero launches.
// Expected verdict: rejected ("launched no kernel of its own ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <vector>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  std::vector<float> ha(static_cast<size_t>(n)), hb(static_cast<size_t>(n)),
      ho(static_cast<size_t>(n));
  if (cudaMemcpyAsync(ha.data(), a, bytes, cudaMemcpyDeviceToHost, stream) != cudaSuccess) return 1;
  if (cudaMemcpyAsync(hb.data(), b, bytes, cudaMemcpyDeviceToHost, stream) != cudaSuccess) return 1;
  if (cudaStreamSynchronize(stream) != cudaSuccess) return 2;
  for (int64_t i = 0; i < n; ++i) ho[i] = ha[i] + 2.0f * hb[i];
  if (cudaMemcpyAsync(out, ho.data(), bytes, cudaMemcpyHostToDevice, stream) != cudaSuccess)
    return 3;
  return cudaStreamSynchronize(stream) == cudaSuccess ? 0 : 4;  // ho must outlive the copy
}
