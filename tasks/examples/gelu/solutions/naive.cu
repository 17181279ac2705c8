// Straightforward CUDA gelu candidate (tanh approximation), f32 only: one thread per element,
// 256 threads per block, the formula exactly as written, with tanhf.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void gelu_naive(const float* x, float* y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = 0.5f * v * (1.0f + tanhf(u));
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const int64_t n = hone_numel(&x);
  if (n == 0) return 0;
  const int64_t blocks = (n + 255) / 256;
  if (blocks > 0x7fffffff) return 2;
  gelu_naive<<<static_cast<unsigned>(blocks), 256, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(x.data), static_cast<float*>(y.data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
