// Naive attention candidate for the GPU: one 128-thread block per query row, keys in chunks of
// 128 with a running (online) softmax. Per chunk, thread j scores key j against the query row
// (kept in shared memory), the block reduces the chunk's max and sum through shared memory, and
// thread e then accumulates sum_j p_j * v[j, e] for its output column e (D <= 1024, so a thread
// holds at most 8 columns). Only the row's running max and sum persist between chunks; the
// division by the sum comes last.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cmath>
#include <cstdint>

namespace {

constexpr int kThreads = 128;
constexpr int kMaxCols = 8;  // columns per thread: D <= kThreads * kMaxCols

// Block-wide max or sum through shared memory; every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      red[threadIdx.x] = kMax ? fmaxf(red[threadIdx.x], red[threadIdx.x + w])
                              : red[threadIdx.x] + red[threadIdx.x + w];
    __syncthreads();
  }
  const float r = red[0];
  __syncthreads();
  return r;
}

__global__ void attention_row(const float* __restrict__ q, const float* __restrict__ k,
                              const float* __restrict__ v, float* __restrict__ out, int64_t s,
                              int d, float scale) {
  __shared__ float qs[kThreads * kMaxCols];
  __shared__ float ps[kThreads];
  __shared__ float red[kThreads];
  const int tid = threadIdx.x;
  const int64_t row = blockIdx.x;  // b * s + i
  const int64_t b = row / s;
  const float* kb = k + b * s * d;
  const float* vb = v + b * s * d;
  for (int e = tid; e < d; e += kThreads) qs[e] = q[row * d + e];
  float acc[kMaxCols];
#pragma unroll
  for (int u = 0; u < kMaxCols; ++u) acc[u] = 0.0f;
  float m = -INFINITY, l = 0.0f;
  __syncthreads();
  for (int64_t j0 = 0; j0 < s; j0 += kThreads) {
    const int64_t j = j0 + tid;
    float sc = -INFINITY;
    if (j < s) {
      float dot = 0.0f;
      for (int e = 0; e < d; ++e) dot += qs[e] * kb[j * d + e];
      sc = dot * scale;
    }
    const float m_new = fmaxf(m, block_reduce<true>(sc, red));
    const float p = j < s ? expf(sc - m_new) : 0.0f;
    ps[tid] = p;
    const float alpha = expf(m - m_new);          // 0 on the first chunk (m = -inf)
    l = l * alpha + block_reduce<false>(p, red);  // its barriers also publish ps
    m = m_new;
    const int64_t n = s - j0 < kThreads ? s - j0 : kThreads;
#pragma unroll
    for (int u = 0; u < kMaxCols; ++u) {
      const int e = tid + u * kThreads;
      if (e < d) {
        float a = acc[u] * alpha;
        for (int64_t jj = 0; jj < n; ++jj) a += ps[jj] * vb[(j0 + jj) * d + e];
        acc[u] = a;
      }
    }
    __syncthreads();  // ps is rewritten by the next chunk
  }
#pragma unroll
  for (int u = 0; u < kMaxCols; ++u) {
    const int e = tid + u * kThreads;
    if (e < d) out[row * d + e] = acc[u] / l;
  }
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 1;
  const hone_tensor& qt = args->inputs[0];
  if (qt.dtype != HONE_F32) return 1;
  const int64_t b = qt.shape[0], s = qt.shape[1], d = qt.shape[2];
  if (b * s * d == 0) return 0;
  if (d > kThreads * kMaxCols || b * s > 0x7fffffff) return 1;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  attention_row<<<static_cast<unsigned>(b * s), kThreads, 0,
                  static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(qt.data), static_cast<const float*>(args->inputs[1].data),
      static_cast<const float*>(args->inputs[2].data), static_cast<float*>(args->outputs[0].data),
      s, static_cast<int>(d), scale);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
