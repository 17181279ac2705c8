// The example suite's naive CUDA softmax (one thread per row, three passes
// over its row) with its block size declared as a tunable, for
// scripts/gpu-check-profile: the default, 512 threads per block, puts the
// 8192 rows of the timed case in 16 blocks, so most SMs idle; hone builds
// every variant, verifies and times each, and keeps the fastest.
// hone: tune BLOCK in {32, 64, 128, 256, 512}
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

#ifndef BLOCK
#define BLOCK 512
#endif

__global__ void softmax_rows(const float* x, float* y, int64_t rows, int64_t n) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + r * n;
  float* yr = y + r * n;
  float m = xr[0];
  for (int64_t i = 1; i < n; ++i) m = fmaxf(m, xr[i]);
  float sum = 0.0f, c = 0.0f;  // Kahan: a plain fp32 sum of 4096 terms drifts past 1e-5
  for (int64_t i = 0; i < n; ++i) {
    yr[i] = expf(xr[i] - m);
    const float t = yr[i] - c;
    const float u = sum + t;
    c = (u - sum) - t;
    sum = u;
  }
  const float inv = 1.0f / sum;
  for (int64_t i = 0; i < n; ++i) yr[i] *= inv;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;
  const int64_t rows = hone_numel(&x) / n;
  if (rows == 0) return 0;
  const int64_t blocks = (rows + BLOCK - 1) / BLOCK;
  if (blocks > 0x7fffffff) return 2;
  softmax_rows<<<static_cast<unsigned>(blocks), BLOCK, 0,
                 static_cast<cudaStream_t>(args->stream)>>>(static_cast<const float*>(x.data),
                                                            static_cast<float*>(y.data), rows, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
