// Kernels that measure the GPU's ceilings: a device-to-device copy (the best
// of cudaMemcpy and vectorised copy kernels in several shapes: a good
// candidate kernel copies as fast as the best of them) and an FP32 FMA loop
// with enough independent accumulators to hide latency.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/gpu.h"

namespace hone {
namespace {

constexpr int kAccumulators = 8;

__global__ void FmaProbe(float* out, int iters, float seed) {
  float acc[kAccumulators];
#pragma unroll
  for (int k = 0; k < kAccumulators; ++k) acc[k] = seed + k + threadIdx.x;
  const float m = 0.9999999f, c = 1e-7f * seed;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kAccumulators; ++k) acc[k] = fmaf(acc[k], m, c);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < kAccumulators; ++k) s += acc[k];
  if (s == 12345.678f) out[blockIdx.x] = s;  // never true; keeps the loop alive
}

__global__ void CopyProbe(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Best of `reps` event-timed runs of `body`, in seconds.
template <typename F>
double BestSeconds(int reps, F body) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  body();  // warm-up
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a);
    body();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    best = std::min(best, ms * 1e-3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best;
}

}  // namespace

double MeasureGpuCopyBandwidth(int device) {
  cudaSetDevice(device);
  // Large, so that launch latency (these events are not held) is a small
  // share. A timed kernel can still read slightly above this ceiling: the
  // part of its output still in L2 when its end event fires is written back
  // after it (measured on an H100: 2956 GB/s at 256 MiB, about 3000 GB/s
  // at 1 GiB, memory-bound kernels at 101-103%).
  const size_t bytes = size_t{1} << 30;
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) return 0;
  cudaMemset(src, 1, bytes);
  double s = BestSeconds(5, [&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); });
  int sms = 1;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  for (int blocks_per_sm : {2, 4, 8, 16})
    for (int threads : {256, 512, 1024})
      s = std::min(s, BestSeconds(5, [&] {
                     CopyProbe<<<blocks_per_sm * sms, threads>>>(
                         static_cast<const int4*>(src), static_cast<int4*>(dst), bytes / 16);
                   }));
  cudaFree(src);
  cudaFree(dst);
  return cudaGetLastError() == cudaSuccess && s > 0 ? 2.0 * bytes / s / 1e9 : 0;
}

double MeasureGpuFp32Rate(int device) {
  cudaSetDevice(device);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, device);
  const int blocks = p.multiProcessorCount * 8, threads = 256, iters = 8192;
  float* out = nullptr;
  if (cudaMalloc(&out, blocks * sizeof(float)) != cudaSuccess) return 0;
  double s = BestSeconds(5, [&] { FmaProbe<<<blocks, threads>>>(out, iters, 1.5f); });
  cudaFree(out);
  double flops = 2.0 * kAccumulators * iters * double(threads) * blocks;
  return cudaGetLastError() == cudaSuccess && s > 0 ? flops / s / 1e9 : 0;
}

}  // namespace hone
