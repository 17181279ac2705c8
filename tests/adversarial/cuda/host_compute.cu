// Does the work on the host: copies a and b to host memory with synchronous cudaMemcpy (the
// legacy default stream), computes out = a + 2 * b on the CPU, copies the result back with
// cudaMemcpy, and launches one token kernel of its own on args->stream so that the launch
// tracking sees a kernel. In a timed call the copies run while hone holds args->stream, before
// the start event can fire, so the host's work would not be timed at all.
// What must catch it: copies during hone_forward that are not on args->stream (the sandbox
// watches memcpy and memset calls as it does kernel launches).
// Expected verdict: rejected ("... on a stream other than args->stream ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>
#include <vector>

__global__ void token_kernel(float* __restrict__ out, int64_t n) {
  if (threadIdx.x == 0 && n > 0) out[0] = out[0];  // touches the output, changes nothing
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  std::vector<float> ha(static_cast<size_t>(n)), hb(static_cast<size_t>(n)),
      ho(static_cast<size_t>(n));
  if (cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  if (cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int64_t i = 0; i < n; ++i) ho[i] = ha[i] + 2.0f * hb[i];
  if (cudaMemcpy(out, ho.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) return 3;
  token_kernel<<<1, 32, 0, static_cast<cudaStream_t>(args->stream)>>>(out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
