// GPU reference for softmax over the last axis, with m = max_j x[b, j]:
//   y[b, i] = exp(x[b, i] - m) / sum_j exp(x[b, j] - m).
//
// Written like a plain PyTorch-eager softmax: one block of 256 threads per row and three passes
// over the row in global memory: (1) the row maximum, (2) the sum of exp(x - max), (3) y =
// exp(x - max) / sum. Each pass is a thread-strided loop followed by a tree reduction in shared
// memory. Everything is computed in T (float or double).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kThreads = 256;  // a power of two: the trees halve it

__device__ __forceinline__ float exp_t(float v) { return expf(v); }
__device__ __forceinline__ double exp_t(double v) { return exp(v); }

// Sum (kMax = false) or maximum (kMax = true) of v over the block; every thread gets it.
template <bool kMax, typename T>
__device__ T block_reduce(T v, T* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const T o = buf[threadIdx.x + half];
      buf[threadIdx.x] =
          kMax ? (o > buf[threadIdx.x] ? o : buf[threadIdx.x]) : buf[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const T r = buf[0];
  __syncthreads();  // buf is reused by the next reduction
  return r;
}

template <typename T>
__global__ void softmax_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  __shared__ T buf[kThreads];
  const T* xr = x + static_cast<int64_t>(blockIdx.x) * n;
  T* yr = y + static_cast<int64_t>(blockIdx.x) * n;
  T m = -static_cast<T>(INFINITY);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) m = xr[i] > m ? xr[i] : m;
  m = block_reduce<true>(m, buf);
  T s = T(0);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) s += exp_t(xr[i] - m);
  s = block_reduce<false>(s, buf);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) yr[i] = exp_t(xr[i] - m) / s;
}

template <typename T>
int launch(const hone_tensor& x, hone_tensor& y, cudaStream_t stream) {
  if (x.ndim < 1) return 3;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;  // no elements
  const int64_t rows = hone_numel(&x) / n;
  if (hone_numel(&y) != rows * n) return 3;
  if (rows == 0) return 0;
  if (rows > 0x7fffffff) return 4;
  softmax_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
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
