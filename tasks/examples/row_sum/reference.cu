// GPU reference for row_sum: y[r] = sum over i of x[r, i], for x of shape [R, N].
//
// Written like a plain PyTorch-eager reduction: one block of 256 threads per row; thread t sums
// x[r, t], x[r, t + 256], ... in T, then the block adds the 256 partial sums with a tree in
// shared memory (halving, one __syncthreads per level). Runs in T = float and T = double.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kThreads = 256;  // a power of two: the tree halves it

template <typename T>
__global__ void row_sum_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  __shared__ T partial[kThreads];
  const T* xr = x + static_cast<int64_t>(blockIdx.x) * n;
  T s = T(0);
  for (int64_t i = threadIdx.x; i < n; i += kThreads) s += xr[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

template <typename T>
int launch(const hone_tensor& x, hone_tensor& y, cudaStream_t stream) {
  if (x.ndim < 1) return 3;
  const int64_t n = x.shape[x.ndim - 1];
  const int64_t rows = hone_numel(&y);
  if (rows * n != hone_numel(&x)) return 3;
  if (rows == 0) return 0;
  if (rows > 0x7fffffff) return 4;
  // n == 0 is fine: every row sums to 0.
  row_sum_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
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
