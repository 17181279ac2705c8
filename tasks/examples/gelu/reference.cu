// GPU reference for gelu (tanh approximation), elementwise:
//   y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
//
// Written like a plain PyTorch-eager elementwise kernel: one thread per output element, 256
// threads per block, the formula evaluated literally in T (float or double). It is the baseline
// the speedup is measured against, and it runs once more with T = double for the precision check.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

__device__ __forceinline__ float tanh_t(float v) { return tanhf(v); }
__device__ __forceinline__ double tanh_t(double v) { return tanh(v); }

template <typename T>
__global__ void gelu_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T c = T(0.7978845608028654);  // sqrt(2 / pi)
  const T k = T(0.044715);
  const T v = x[i];
  const T u = c * (v + k * v * v * v);
  y[i] = T(0.5) * v * (T(1) + tanh_t(u));
}

template <typename T>
int launch(const hone_tensor& x, hone_tensor& y, cudaStream_t stream) {
  const int64_t n = hone_numel(&x);
  if (hone_numel(&y) != n) return 3;
  if (n == 0) return 0;
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffff) return 4;
  gelu_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const T*>(x.data), static_cast<T*>(y.data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (x.dtype != y.dtype) return 1;
  if (x.dtype == HONE_F32) return launch<float>(x, y, stream);
  if (x.dtype == HONE_F64) return launch<double>(x, y, stream);
  return 1;
}
