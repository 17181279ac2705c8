// Straightforward CUDA layernorm candidate, f32 only: one thread per row, three sequential
// passes over its row (mean; variance around the mean; normalize, scale, shift), like the CPU
// naive candidate. Neighbouring threads read different rows, so the loads are not coalesced.
// Both sums are compensated (Kahan), so long rows stay within the 1e-5 tolerances.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

// Adds v to the compensated sum (s, c).
__device__ __forceinline__ void kahan_add(float& s, float& c, float v) {
  const float t = v - c;
  const float u = s + t;
  c = (u - s) - t;
  s = u;
}

__global__ void layernorm_naive(const float* x, const float* w, const float* b, float* y,
                                int64_t rows, int64_t n) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + r * n;
  float* yr = y + r * n;
  float sum = 0.0f, c = 0.0f;
  for (int64_t i = 0; i < n; ++i) kahan_add(sum, c, xr[i]);
  const float mean = sum / static_cast<float>(n);
  float sq = 0.0f;
  c = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float d = xr[i] - mean;
    kahan_add(sq, c, d * d);
  }
  const float rstd = 1.0f / sqrtf(sq / static_cast<float>(n) + 1e-5f);
  for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mean) * rstd * w[i] + b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || b.dtype != HONE_F32 || y.dtype != HONE_F32)
    return 1;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;
  const int64_t rows = hone_numel(&x) / n;
  if (rows == 0) return 0;
  const int64_t blocks = (rows + 127) / 128;
  if (blocks > 0x7fffffff) return 2;
  layernorm_naive<<<static_cast<unsigned>(blocks), 128, 0,
                    static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(x.data), static_cast<const float*>(w.data),
      static_cast<const float*>(b.data), static_cast<float*>(y.data), rows, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
