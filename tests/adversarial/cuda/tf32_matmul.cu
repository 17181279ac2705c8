// Matrix product for tests/adversarial/tasks/matmul with TF32 operands: a 16 x 16 tiled kernel
// that rounds every element of A and B to TF32 (10 explicit mantissa bits, cvt.rna.tf32.f32)
// on its way into shared memory and accumulates in f32: exactly what TF32 tensor cores compute,
// and what "allow_tf32" silently turns on in frameworks. The task is f32.
// What must catch it: the float64 precision check (TF32-rounded operands give a relative L2
// error of ~2.6e-4 against the task's bound of 1e-5), and usually the element-wise tolerance.
// Expected verdict (task matmul): incorrect.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

constexpr int kTile = 16;

__device__ __forceinline__ float ToTf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

__global__ void matmul_tf32_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int64_t m, int64_t n, int64_t k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float acc = 0;
  for (int64_t p0 = 0; p0 < k; p0 += kTile) {
    as[ty][tx] = row < m && p0 + tx < k ? ToTf32(a[row * k + p0 + tx]) : 0.0f;
    bs[ty][tx] = p0 + ty < k && col < n ? ToTf32(b[(p0 + ty) * n + col]) : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) acc += as[ty][p] * bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (m == 0 || n == 0) return 0;
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((m + kTile - 1) / kTile));
  matmul_tf32_kernel<<<grid, block, 0, stream>>>(
      static_cast<const float*>(a.data), static_cast<const float*>(b.data),
      static_cast<float*>(args->outputs[0].data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
