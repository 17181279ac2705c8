// Fast CUDA gelu candidate (f32), tanh approximation, for Hopper (sm_90a).
//
// Memory-bound elementwise op: each thread moves kUnroll float4 (16-byte) loads, all issued
// before the first use, then kUnroll float4 stores; a block of 256 threads covers one tile of
// 256 * kUnroll float4, the warp's accesses are contiguous (coalesced), and the grid is one
// block per tile (grid-stride over tiles only if that exceeds the grid limit). The n % 4
// trailing elements are done by the first threads of block 0; a tensor whose pointers are not
// 16-byte aligned (a view) takes a scalar grid-stride path instead.
//
// Math: 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)), so y = x / (1 + exp(a)) with
// a = -2u = x * (-2c - 2ck * x^2), c = sqrt(2/pi), k = 0.044715. Same function as the tanh form,
// but without the cancellation in 1 + tanh(u) for x << 0, and one accurate expf (<= 2 ulp, not
// the __expf intrinsic) plus an IEEE division: a few ulp overall. For x << 0, exp(a) overflows to
// inf and y = x / inf = -0, which is the limit; for x >> 0, exp(a) = 0 and y = x.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // float4 per thread per tile: 64 bytes in flight per thread
constexpr int64_t kTile = static_cast<int64_t>(kThreads) * kUnroll;  // float4 per block tile
constexpr float kC2 = -1.5957691216057308f;                          // -2 * sqrt(2 / pi)
constexpr float kK2 = -1.5957691216057308f * 0.044715f;              // -2 * sqrt(2 / pi) * 0.044715

__device__ __forceinline__ float gelu1(float v) {
  const float a = v * fmaf(kK2, v * v, kC2);
  return v / (1.0f + expf(a));
}

__device__ __forceinline__ float4 gelu4(float4 v) {
  return make_float4(gelu1(v.x), gelu1(v.y), gelu1(v.z), gelu1(v.w));
}

// x, y: 16-byte aligned. n4 = n / 4 float4, then n - 4 * n4 (< 4) scalar tail elements.
__global__ void __launch_bounds__(kThreads)
    gelu_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4,
              const float* __restrict__ xs, float* __restrict__ ys, int64_t n) {
  const int64_t tiles = (n4 + kTile - 1) / kTile;
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t base = t * kTile + threadIdx.x;
    float4 v[kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int64_t i = base + static_cast<int64_t>(j) * kThreads;
      if (i < n4) v[j] = x[i];
    }
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int64_t i = base + static_cast<int64_t>(j) * kThreads;
      if (i < n4) y[i] = gelu4(v[j]);
    }
  }
  if (blockIdx.x == 0) {
    const int64_t i = 4 * n4 + threadIdx.x;  // at most 3 tail elements
    if (i < n) ys[i] = gelu1(xs[i]);
  }
}

// Fallback for pointers that are not 16-byte aligned: scalar, grid-stride.
__global__ void __launch_bounds__(kThreads)
    gelu_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
    y[i] = gelu1(x[i]);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  const int64_t n = hone_numel(&x);
  if (hone_numel(&y) != n) return 3;
  if (n == 0) return 0;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  constexpr int64_t kMaxGrid = 0x7fffffff;
  if (((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0) {
    const int64_t n4 = n / 4;
    int64_t grid = (n4 + kTile - 1) / kTile;
    if (grid < 1) grid = 1;  // n < 4: block 0 does the tail
    if (grid > kMaxGrid) grid = kMaxGrid;
    gelu_vec4<<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(xp), reinterpret_cast<float4*>(yp), n4, xp, yp, n);
  } else {
    int64_t grid = (n + kThreads - 1) / kThreads;
    if (grid > kMaxGrid) grid = kMaxGrid;
    gelu_scalar<<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(xp, yp, n);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
