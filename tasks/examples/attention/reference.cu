// GPU reference for attention: single-head scaled dot-product attention without a mask, per
// batch: out[b] = softmax(q[b] @ k[b]^T / sqrt(D)) @ v[b]. It runs the way eager PyTorch's math
// path does, as three separate kernels around a full B x S x S score matrix in the workspace:
//  1. scores: one thread per (b, i, j), a dot product over D in T, times 1/sqrt(D);
//  2. softmax: one 256-thread block per row, a block-wide max, exp(s - max) with a block-wide
//     sum, then a division by the sum;
//  3. p @ v: one thread per (b, i, e), a sum over the S keys in T.
// Untuned on purpose: the honest baseline. Templated over T (float, double).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cmath>
#include <cstdint>

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float dexp(float x) { return expf(x); }
__device__ __forceinline__ double dexp(double x) { return exp(x); }

template <typename T>
__global__ void scores_kernel(const T* __restrict__ q, const T* __restrict__ k, T* __restrict__ p,
                              int64_t batches, int64_t s, int64_t d, T scale) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (idx >= batches * s * s) return;
  const int64_t j = idx % s, i = (idx / s) % s, b = idx / (s * s);
  const T* qi = q + (b * s + i) * d;
  const T* kj = k + (b * s + j) * d;
  T acc = 0;
  for (int64_t e = 0; e < d; ++e) acc += qi[e] * kj[e];
  p[idx] = acc * scale;
}

// Block-wide reduction of one value per thread through shared memory; every thread gets the
// result. `red` holds kThreads values.
template <typename T, bool kMax>
__device__ T block_reduce(T v, T* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) {
      const T a = red[threadIdx.x], b = red[threadIdx.x + w];
      red[threadIdx.x] = kMax ? (b > a ? b : a) : a + b;
    }
    __syncthreads();
  }
  const T r = red[0];
  __syncthreads();  // red is reused by the next reduction
  return r;
}

template <typename T>
__global__ void softmax_kernel(T* __restrict__ p, int64_t s) {
  __shared__ T red[kThreads];
  T* row = p + static_cast<int64_t>(blockIdx.x) * s;
  T m = row[0];
  for (int64_t j = threadIdx.x; j < s; j += kThreads) m = row[j] > m ? row[j] : m;
  m = block_reduce<T, true>(m, red);
  T sum = 0;
  for (int64_t j = threadIdx.x; j < s; j += kThreads) sum += (row[j] = dexp(row[j] - m));
  sum = block_reduce<T, false>(sum, red);
  for (int64_t j = threadIdx.x; j < s; j += kThreads) row[j] /= sum;
}

template <typename T>
__global__ void pv_kernel(const T* __restrict__ p, const T* __restrict__ v, T* __restrict__ out,
                          int64_t batches, int64_t s, int64_t d) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (idx >= batches * s * d) return;
  const int64_t e = idx % d, i = (idx / d) % s, b = idx / (s * d);
  const T* pi = p + (b * s + i) * s;
  const T* vb = v + b * s * d + e;
  T acc = 0;
  for (int64_t j = 0; j < s; ++j) acc += pi[j] * vb[j * d];
  out[idx] = acc;
}

template <typename T>
int run(const hone_args* args) {
  const hone_tensor& q = args->inputs[0];
  const int64_t b = q.shape[0], s = q.shape[1], d = q.shape[2];
  if (b * s * d == 0) return 0;  // nothing to write
  if (args->workspace == nullptr ||
      args->workspace_bytes < static_cast<size_t>(b * s * s) * sizeof(T))
    return 1;
  const T scale = T(1) / std::sqrt(T(d));
  T* p = static_cast<T*>(args->workspace);
  const int64_t score_blocks = (b * s * s + kThreads - 1) / kThreads;
  const int64_t out_blocks = (b * s * d + kThreads - 1) / kThreads;
  if (score_blocks > 0x7fffffff || out_blocks > 0x7fffffff || b * s > 0x7fffffff) return 1;
  cudaStream_t st = static_cast<cudaStream_t>(args->stream);
  scores_kernel<T><<<static_cast<unsigned>(score_blocks), kThreads, 0, st>>>(
      static_cast<const T*>(q.data), static_cast<const T*>(args->inputs[1].data), p, b, s, d,
      scale);
  softmax_kernel<T><<<static_cast<unsigned>(b * s), kThreads, 0, st>>>(p, s);
  pv_kernel<T><<<static_cast<unsigned>(out_blocks), kThreads, 0, st>>>(
      p, static_cast<const T*>(args->inputs[2].data), static_cast<T*>(args->outputs[0].data), b, s,
      d);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t num_inputs) {
  if (num_inputs < 1 || inputs[0].ndim != 3) return 0;
  const size_t elem = inputs[0].dtype == HONE_F64 ? sizeof(double) : sizeof(float);
  const size_t b = static_cast<size_t>(inputs[0].shape[0]);
  const size_t s = static_cast<size_t>(inputs[0].shape[1]);
  return b * s * s * elem;  // the score matrix of every batch
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 1;
  const hone_dtype t = args->inputs[0].dtype;
  if (args->inputs[1].dtype != t || args->inputs[2].dtype != t || args->outputs[0].dtype != t)
    return 1;
  if (t == HONE_F32) return run<float>(args);
  if (t == HONE_F64) return run<double>(args);
  return 1;
}
