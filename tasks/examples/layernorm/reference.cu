// GPU reference for layernorm over the last axis, biased variance, two passes for the
// statistics:
//   mean = sum(x) / N, var = sum((x - mean)^2) / N,
//   y = (x - mean) / sqrt(var + 1e-5) * weight + bias.
//
// Written like a plain PyTorch-eager kernel: one block of 256 threads per row; the sum and then
// the sum of squared deviations are thread-strided loops over the row in global memory followed
// by a tree reduction in shared memory, then a third loop writes y. Everything is computed in T
// (float or double).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kThreads = 256;  // a power of two: the tree halves it

__device__ __forceinline__ float sqrt_t(float v) { return sqrtf(v); }
__device__ __forceinline__ double sqrt_t(double v) { return sqrt(v); }

// Sum of v over the block; every thread gets it.
template <typename T>
__device__ T block_sum(T v, T* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) buf[threadIdx.x] += buf[threadIdx.x + half];
    __syncthreads();
  }
  const T r = buf[0];
  __syncthreads();  // buf is reused by the next reduction
  return r;
}

template <typename T>
__global__ void layernorm_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                 const T* __restrict__ b, T* __restrict__ y, int64_t n) {
  __shared__ T buf[kThreads];
  const T eps = T(1e-5);
  const T* xr = x + static_cast<int64_t>(blockIdx.x) * n;
  T* yr = y + static_cast<int64_t>(blockIdx.x) * n;
  T s = T(0);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) s += xr[i];
  const T mean = block_sum(s, buf) / T(n);
  T sq = T(0);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) sq += (xr[i] - mean) * (xr[i] - mean);
  const T var = block_sum(sq, buf) / T(n);
  const T denom = sqrt_t(var + eps);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) yr[i] = (xr[i] - mean) / denom * w[i] + b[i];
}

template <typename T>
int launch(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.ndim < 1) return 3;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;  // no elements
  const int64_t rows = hone_numel(&x) / n;
  if (hone_numel(&y) != rows * n || hone_numel(&w) != n || hone_numel(&b) != n) return 3;
  if (rows == 0) return 0;
  if (rows > 0x7fffffff) return 4;
  layernorm_kernel<T>
      <<<static_cast<unsigned>(rows), kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
          static_cast<const T*>(x.data), static_cast<const T*>(w.data),
          static_cast<const T*>(b.data), static_cast<T*>(y.data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 2;
  const hone_dtype t = args->inputs[0].dtype;
  if (args->inputs[1].dtype != t || args->inputs[2].dtype != t || args->outputs[0].dtype != t)
    return 1;
  if (t == HONE_F32) return launch<float>(args);
  if (t == HONE_F64) return launch<double>(args);
  return 1;
}
