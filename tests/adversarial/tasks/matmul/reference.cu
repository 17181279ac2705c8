// GPU reference for the adversarial fixture 'matmul': C[M,N] = A[M,K] @ B[K,N], row-major.
//
// 16 x 16 output tiles, one thread per output element; A and B pass through shared memory in
// 16-deep slices, and each thread accumulates its dot product in T in order k = 0..K-1 (as
// reference.cpp does). Plain CUDA cores, no tensor cores, no TF32: the honest f32 baseline that
// the low-precision hacks are compared with. Templated over T (float, double) for the
// precision check.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kTile = 16;

template <typename T>
__global__ void matmul_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                              int64_t m, int64_t n, int64_t k) {
  __shared__ T as[kTile][kTile];
  __shared__ T bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  T acc = 0;
  for (int64_t p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = row < m && p0 + tx < k ? a[row * k + p0 + tx] : T(0);
    bs[ty][tx] = p0 + ty < k && col < n ? b[(p0 + ty) * n + col] : T(0);
    __syncthreads();
    const int depth = k - p0 < kTile ? static_cast<int>(k - p0) : kTile;
    for (int p = 0; p < depth; ++p) acc += as[ty][p] * bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

template <typename T>
int run(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const hone_tensor& c = args->outputs[0];
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (m == 0 || n == 0) return 0;  // nothing to write (a grid of 0 blocks is a launch error)
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((m + kTile - 1) / kTile));
  if (grid.y > 65535) return 4;
  matmul_kernel<T><<<grid, block, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const T*>(a.data), static_cast<const T*>(b.data), static_cast<T*>(c.data), m, n,
      k);
  return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 2;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const hone_tensor& c = args->outputs[0];
  if (a.ndim != 2 || b.ndim != 2 || c.ndim != 2) return 3;
  if (b.shape[0] != a.shape[1] || c.shape[0] != a.shape[0] || c.shape[1] != b.shape[1]) return 3;
  const hone_dtype t = a.dtype;
  if (b.dtype != t || c.dtype != t) return 1;
  if (t == HONE_F32) return run<float>(args);
  if (t == HONE_F64) return run<double>(args);
  return 1;
}
