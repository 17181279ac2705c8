// Straightforward CUDA row_sum candidate, f32 only: one thread per row, summing its row left
// to right. Loads are not coalesced across the warp (neighbouring threads read different rows),
// which is what makes it slow. The running sum is compensated (Kahan): a plain running fp32 sum
// loses ~sqrt(N) ulp and fails the 1e-5 tolerances on long rows.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void row_sum_naive(const float* x, float* y, int64_t rows, int64_t n) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f, c = 0.0f;  // sum and the low-order bits it lost
  for (int64_t i = 0; i < n; ++i) {
    const float t = x[r * n + i] - c;
    const float u = s + t;
    c = (u - s) - t;
    s = u;
  }
  y[r] = s;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&y);
  if (rows == 0) return 0;
  const int64_t blocks = (rows + 255) / 256;
  if (blocks > 0x7fffffff) return 2;
  row_sum_naive<<<static_cast<unsigned>(blocks), 256, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(x.data), static_cast<float*>(y.data), rows, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
