// Fast CUDA softmax candidate (f32) for Hopper (sm_90a): row-wise softmax over the last axis.
//
// Memory-bound; the goal is to read x once and write y once (8 bytes per element). A row is
// loaded into registers, its max and sum(exp(x - max)) are reduced from registers, and y =
// exp(x - max) * (1 / sum) is written from registers: two passes over memory, not four.
//  - Packs: rows are read and written as float4 when N % 4 == 0 and x, y are 16-byte aligned
//    (then every row start is), else as coalesced scalars. Element (pack) c of a row lives in
//    pack slot c / T of thread c % T, T = threads per row, so each load is coalesced.
//  - N <= 1024 (float4) or <= 256 (scalar): W lanes of one warp per row (W = 32, or the power of
//    two that covers a short row, so a warp handles 32 / W rows), up to 8 packs per lane in
//    registers, reductions with __shfl_xor_sync inside the W-lane group: no shared memory, no
//    __syncthreads.
//  - N <= 32768 (float4) or <= 8192 (scalar): one block per row, 4 or 8 packs per thread, block
//    size the power of two (64..1024) that covers the row; reductions are warp shuffles plus one
//    shared-memory slot per warp (conflict-free), two __syncthreads per row.
//  - Longer rows: one block per row, online softmax (running max and rescaled sum) in a first
//    pass with 8 loads in flight per thread, then a second pass that writes y (3 passes over
//    memory; the row's second read mostly hits L2).
//  - Grids are one group/block per row, grid-stride over rows only past the grid-size limit.
// exp is the accurate expf (<= 2 ulp), not __expf; 1 / sum is an IEEE division, once per row.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kGroupBlock = 128;   // threads per block of the warp-group kernel
constexpr int kStreamBlock = 512;  // threads per block of the long-row kernel
constexpr int kBatch = 8;          // packs in flight per thread in the long-row kernel
constexpr int64_t kMaxGrid = 0x7fffffff;

template <int P>
__device__ __forceinline__ void load_pack(const float* __restrict__ p, int64_t c, float (&v)[P]) {
  if constexpr (P == 4) {
    const float4 t = reinterpret_cast<const float4*>(p)[c];
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else {
    v[0] = p[c];
  }
}

template <int P>
__device__ __forceinline__ void store_pack(float* __restrict__ p, int64_t c, const float (&v)[P],
                                           float scale) {
  if constexpr (P == 4) {
    reinterpret_cast<float4*>(p)[c] =
        make_float4(v[0] * scale, v[1] * scale, v[2] * scale, v[3] * scale);
  } else {
    p[c] = v[0] * scale;
  }
}

template <int W>
__device__ __forceinline__ float group_max(float v) {
#pragma unroll
  for (int o = W / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <int W>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int o = W / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block-wide max / sum; every thread gets the result. smem: 32 floats, one per warp. Each
// warp reads all the slots back and reduces them itself, so no broadcast step is needed. The
// caller alternates between two smem arrays, so no trailing barrier is needed either: a thread
// writes an array again only after the barrier of the other reduction, which every thread
// reaches after reading this array.
__device__ __forceinline__ float block_max(float v, float* smem) {
  v = group_max<32>(v);
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  return group_max<32>(lane < static_cast<int>(blockDim.x >> 5) ? smem[lane] : -INFINITY);
}

__device__ __forceinline__ float block_sum(float v, float* smem) {
  v = group_sum<32>(v);
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  return group_sum<32>(lane < static_cast<int>(blockDim.x >> 5) ? smem[lane] : 0.0f);
}

// W lanes per row (W a power of two <= 32), NP packs of P floats per lane: W * NP * P >= N.
template <int W, int P, int NP>
__global__ void __launch_bounds__(kGroupBlock)
    softmax_group(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t n) {
  constexpr int kRowsPerWarp = 32 / W;
  const int lane = threadIdx.x & 31, l = lane % W;
  const int64_t packs = n / P;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * kGroupBlock + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * kGroupBlock) >> 5;
// r0 depends only on the warp, so all lanes run the same iterations (the shuffles need every
// lane); lanes of a row past the end skip loads and stores only.
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r0 = warp * kRowsPerWarp; r0 < rows; r0 += warps * kRowsPerWarp) {
    const int64_t r = r0 + lane / W;
    const bool valid = r < rows;
    const float* xr = x + (valid ? r : 0) * n;
    float* yr = y + (valid ? r : 0) * n;
    float v[NP][P];
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * W + l;
      if (valid && c < packs) {
        load_pack<P>(xr, c, v[p]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[p][k] = -INFINITY;  // exp(-inf - max) = 0
      }
#pragma unroll
      for (int k = 0; k < P; ++k) m = fmaxf(m, v[p][k]);
    }
    m = group_max<W>(m);
    float s = 0.0f;
#pragma unroll
    for (int p = 0; p < NP; ++p)
#pragma unroll
      for (int k = 0; k < P; ++k) {
        v[p][k] = expf(v[p][k] - m);
        s += v[p][k];
      }
    s = group_sum<W>(s);
    const float inv = 1.0f / s;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * W + l;
      if (valid && c < packs) store_pack<P>(yr, c, v[p], inv);
    }
  }
}

// One block per row, NP packs of P floats per thread: blockDim.x * NP * P >= N.
template <int P, int NP>
__global__ void __launch_bounds__(1024)
    softmax_block(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t n) {
  __shared__ float red_max[32], red_sum[32];
  const int64_t packs = n / P;
  const int threads = blockDim.x;
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float v[NP][P];
    float m = -INFINITY;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * threads + threadIdx.x;
      if (c < packs) {
        load_pack<P>(xr, c, v[p]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[p][k] = -INFINITY;
      }
#pragma unroll
      for (int k = 0; k < P; ++k) m = fmaxf(m, v[p][k]);
    }
    m = block_max(m, red_max);
    float s = 0.0f;
#pragma unroll
    for (int p = 0; p < NP; ++p)
#pragma unroll
      for (int k = 0; k < P; ++k) {
        v[p][k] = expf(v[p][k] - m);
        s += v[p][k];
      }
    s = block_sum(s, red_sum);
    const float inv = 1.0f / s;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * threads + threadIdx.x;
      if (c < packs) store_pack<P>(yr, c, v[p], inv);
    }
  }
}

// Merges the online-softmax state (m2, s2) into (m, s): s is a sum of exp(x - m).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  const float mn = fmaxf(m, m2);
  if (mn == -INFINITY) return;  // both empty (or all -inf so far): s = s2 = 0
  s = s * expf(m - mn) + s2 * expf(m2 - mn);
  m = mn;
}

// Long rows: one block of kStreamBlock threads per row, online max/sum, then a writing pass.
template <int P>
__global__ void __launch_bounds__(kStreamBlock)
    softmax_stream(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t n) {
  __shared__ float red_m[32], red_s[32];
  const int64_t packs = n / P;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  constexpr int kWarps = kStreamBlock / 32;
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float m = -INFINITY, s = 0.0f;
    for (int64_t i = threadIdx.x; i < packs; i += static_cast<int64_t>(kBatch) * kStreamBlock) {
      float v[kBatch][P];
      float bm = -INFINITY;
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t c = i + static_cast<int64_t>(j) * kStreamBlock;
        if (c < packs) {
          load_pack<P>(xr, c, v[j]);
        } else {
#pragma unroll
          for (int k = 0; k < P; ++k) v[j][k] = -INFINITY;
        }
#pragma unroll
        for (int k = 0; k < P; ++k) bm = fmaxf(bm, v[j][k]);
      }
      const float mn = fmaxf(m, bm);
      if (mn != -INFINITY) {
        float t = 0.0f;
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
#pragma unroll
          for (int k = 0; k < P; ++k) t += expf(v[j][k] - mn);
        s = s * expf(m - mn) + t;
        m = mn;
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
      const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
      merge(m, s, m2, s2);
    }
    if (lane == 0) red_m[wid] = m, red_s[wid] = s;
    __syncthreads();
    m = lane < kWarps ? red_m[lane] : -INFINITY;
    s = lane < kWarps ? red_s[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
      const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
      merge(m, s, m2, s2);
    }
    __syncthreads();  // red_m / red_s are rewritten for the next row
    const float inv = 1.0f / s;
#pragma unroll 1
    for (int64_t i = threadIdx.x; i < packs; i += static_cast<int64_t>(kBatch) * kStreamBlock) {
      float v[kBatch][P];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t c = i + static_cast<int64_t>(j) * kStreamBlock;
        if (c < packs) load_pack<P>(xr, c, v[j]);
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t c = i + static_cast<int64_t>(j) * kStreamBlock;
        if (c < packs) {
#pragma unroll
          for (int k = 0; k < P; ++k) v[j][k] = expf(v[j][k] - m);
          store_pack<P>(yr, c, v[j], inv);
        }
      }
    }
  }
}

int64_t grid_for(int64_t blocks) { return blocks < kMaxGrid ? blocks : kMaxGrid; }

template <int W, int P, int NP>
void launch_group(const float* x, float* y, int64_t rows, int64_t n, cudaStream_t stream) {
  constexpr int64_t kRowsPerBlock = (kGroupBlock / 32) * (32 / W);
  const int64_t grid = grid_for((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  softmax_group<W, P, NP><<<static_cast<unsigned>(grid), kGroupBlock, 0, stream>>>(x, y, rows, n);
}

template <int P, int NP>
void launch_block(const float* x, float* y, int64_t rows, int64_t n, cudaStream_t stream) {
  const int64_t per_thread = (n / P + NP - 1) / NP;  // threads needed
  int threads = 32;
  while (threads < per_thread) threads *= 2;  // <= 1024 by the caller's choice of NP
  softmax_block<P, NP>
      <<<static_cast<unsigned>(grid_for(rows)), threads, 0, stream>>>(x, y, rows, n);
}

template <int P>
void launch(const float* x, float* y, int64_t rows, int64_t n, cudaStream_t stream) {
  const int64_t packs = n / P;
  if (packs <= 1) return launch_group<1, P, 1>(x, y, rows, n, stream);
  if (packs <= 2) return launch_group<2, P, 1>(x, y, rows, n, stream);
  if (packs <= 4) return launch_group<4, P, 1>(x, y, rows, n, stream);
  if (packs <= 8) return launch_group<8, P, 1>(x, y, rows, n, stream);
  if (packs <= 16) return launch_group<16, P, 1>(x, y, rows, n, stream);
  if (packs <= 32) return launch_group<32, P, 1>(x, y, rows, n, stream);
  if (packs <= 64) return launch_group<32, P, 2>(x, y, rows, n, stream);
  if (packs <= 128) return launch_group<32, P, 4>(x, y, rows, n, stream);
  if (packs <= 256) return launch_group<32, P, 8>(x, y, rows, n, stream);
  if constexpr (P == 4) {
    if (packs <= 4 * 1024) return launch_block<P, 4>(x, y, rows, n, stream);
  }
  if (packs <= 8 * 1024) return launch_block<P, 8>(x, y, rows, n, stream);
  softmax_stream<P>
      <<<static_cast<unsigned>(grid_for(rows)), kStreamBlock, 0, stream>>>(x, y, rows, n);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  if (x.ndim < 1) return 3;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;  // no elements to write
  const int64_t rows = hone_numel(&x) / n;
  if (hone_numel(&y) != rows * n) return 3;
  if (rows == 0) return 0;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  if (n % 4 == 0 && ((reinterpret_cast<uintptr_t>(xp) | reinterpret_cast<uintptr_t>(yp)) & 15) == 0)
    launch<4>(xp, yp, rows, n, stream);
  else
    launch<1>(xp, yp, rows, n, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
