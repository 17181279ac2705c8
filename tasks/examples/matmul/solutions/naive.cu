// Naive matmul candidate for the GPU: the textbook shared-memory tiled kernel. Each 16 x 16
// thread block computes a 16 x 16 tile of C, one output element per thread; per step it stages a
// 16 x 16 tile of A and of B in shared memory (zero-filled past the edges, so any M, N, K work)
// and every thread does 16 FMAs from them. Sums run in order k = 0..K-1 in float.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kTile = 16;

__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kTile; ++p) acc += as[ty][p] * bs[p][tx];
    __syncthreads();  // the tiles are overwritten in the next step
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 2 || args->num_outputs != 1) return 1;
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const hone_tensor& c = args->outputs[0];
  if (a.dtype != HONE_F32 || b.dtype != HONE_F32 || c.dtype != HONE_F32) return 1;
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (m == 0 || n == 0) return 0;
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((m + kTile - 1) / kTile));
  if (grid.y > 65535) return 1;
  matmul_tiled<<<grid, dim3(kTile, kTile), 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(a.data), static_cast<const float*>(b.data),
      static_cast<float*>(c.data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
