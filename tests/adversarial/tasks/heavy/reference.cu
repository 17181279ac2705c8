// GPU reference for the adversarial fixture 'heavy':
//   out[i] = sum_{k=0}^{63} sin(a[i] * (k + 1) * 0.01 + b[i]).
//
// One thread per element, 256 threads per block, on args->stream; the argument and the sum are
// evaluated in T in the same order as reference.cpp, with the accurate sinf / sin (no fast-math
// intrinsics). Templated over T (float, double) for the precision check.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

__device__ __forceinline__ float sin_t(float v) { return sinf(v); }
__device__ __forceinline__ double sin_t(double v) { return sin(v); }

template <typename T>
__global__ void heavy_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                             int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T x = a[i], y = b[i];
  T acc = 0;
  for (int k = 0; k < 64; ++k) acc += sin_t(x * T(k + 1) * T(0.01) + y);
  out[i] = acc;
}

template <typename T>
int launch(const hone_tensor& a, const hone_tensor& b, hone_tensor& out, cudaStream_t stream) {
  const int64_t n = hone_numel(&out);
  if (hone_numel(&a) != n || hone_numel(&b) != n) return 3;
  if (n == 0) return 0;
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffff) return 4;
  heavy_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const T*>(a.data), static_cast<const T*>(b.data), static_cast<T*>(out.data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 2;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& out = args->outputs[0];
  if (b.dtype != a.dtype || out.dtype != a.dtype) return 1;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (a.dtype == HONE_F32) return launch<float>(a, b, out, stream);
  if (a.dtype == HONE_F64) return launch<double>(a, b, out, stream);
  return 1;
}
