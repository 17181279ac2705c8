// GPU reference for matmul: C[M,N] = A[M,K] @ B[K,N], all row-major.
// One thread per output element C[i, j] (32 x 8 thread blocks, j fastest, so a warp reads 32
// consecutive elements of a row of B and one element of A), accumulated in T in order
// k = 0..K-1, exactly like reference.cpp. No tiling and no shared memory: this is the honest
// untuned baseline, not a competitor. Templated over T (float, double) for the precision check.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

template <typename T>
__global__ void matmul_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                              int64_t m, int64_t n, int64_t k) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t i = static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  T acc = 0;
  for (int64_t p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
  c[i * n + j] = acc;
}

template <typename T>
int run(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const hone_tensor& c = args->outputs[0];
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (m == 0 || n == 0) return 0;  // nothing to write (a grid of 0 blocks is a launch error)
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((m + 7) / 8));
  if (grid.y > 65535) return 1;
  matmul_kernel<T><<<grid, block, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const T*>(a.data), static_cast<const T*>(b.data), static_cast<T*>(c.data), m, n,
      k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 1;
  const hone_dtype t = args->inputs[0].dtype;
  if (args->inputs[1].dtype != t || args->outputs[0].dtype != t) return 1;
  if (t == HONE_F32) return run<float>(args);
  if (t == HONE_F64) return run<double>(args);
  return 1;
}
