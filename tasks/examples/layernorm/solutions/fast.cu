// Fast CUDA layernorm candidate (f32) for Hopper (sm_90a): over the last axis, biased variance,
//   y = (x - mean) * rstd * weight + bias, rstd = 1 / sqrt(var + 1e-5).
//
// Memory-bound; the goal is to read x once and write y once. A row is loaded into registers;
// the mean and then the variance around that mean (exact two-pass statistics, no E[x^2] -
// mean^2 cancellation) are both reduced from registers, and y is written from registers.
// weight and bias (N floats each, shared by all rows) are read at the end and stay in L1/L2.
//  - Packs: rows are read and written as float4 when N % 4 == 0 and x, y, weight, bias are
//    16-byte aligned (then every row start is), else as coalesced scalars. Pack c of a row
//    lives in slot c / T of thread c % T, T = threads per row, so each access is coalesced.
//  - N <= 1024 (float4) or <= 256 (scalar): W lanes of one warp per row (W = 32, or the power of
//    two that covers a short row, so a warp handles 32 / W rows), up to 8 packs per lane,
//    reductions with __shfl_xor_sync inside the W-lane group: no shared memory, no barrier.
//  - N <= 32768 (float4) or <= 8192 (scalar): one block per row, 4 or 8 packs per thread, block
//    size the power of two (64..1024) that covers the row; reductions are warp shuffles plus one
//    shared-memory slot per warp (conflict-free), two __syncthreads per row.
//  - Longer rows: one block per row and three passes (sum, squared deviations, write) with 8
//    loads in flight per thread; the row's re-reads mostly hit L2.
//  - Grids are one group/block per row, grid-stride over rows only past the grid-size limit.
// sqrtf and the division are IEEE-rounded (no rsqrtf / fast-math intrinsics).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr float kEps = 1e-5f;
constexpr int kGroupBlock = 128;   // threads per block of the warp-group kernel
constexpr int kStreamBlock = 512;  // threads per block of the long-row kernel
constexpr int kBatch = 8;          // packs in flight per thread in the long-row kernel
constexpr int kWriteBatch = 4;     // ... in its writing pass (x, weight, bias: 3 loads a pack)
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

// y[c] = d * rstd * w[c] + b[c] for the P floats of pack c.
template <int P>
__device__ __forceinline__ void store_normalized(float* __restrict__ y, const float* __restrict__ w,
                                                 const float* __restrict__ b, int64_t c,
                                                 const float (&d)[P], float rstd) {
  float wv[P], bv[P], o[P];
  load_pack<P>(w, c, wv);
  load_pack<P>(b, c, bv);
#pragma unroll
  for (int k = 0; k < P; ++k) o[k] = fmaf(d[k] * rstd, wv[k], bv[k]);
  if constexpr (P == 4)
    reinterpret_cast<float4*>(y)[c] = make_float4(o[0], o[1], o[2], o[3]);
  else
    y[c] = o[0];
}

template <int W>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int o = W / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block-wide sum; every thread gets it. smem: 32 floats, one per warp; each warp reads all the
// slots back and reduces them itself. The caller alternates between two smem arrays, so no
// trailing barrier is needed: a thread writes an array again only after the barrier of the
// other reduction, which every thread reaches after reading this array.
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
    layernorm_group(const float* __restrict__ x, const float* __restrict__ w,
                    const float* __restrict__ b, float* __restrict__ y, int64_t rows, int64_t n) {
  constexpr int kRowsPerWarp = 32 / W;
  const int lane = threadIdx.x & 31, l = lane % W;
  const int64_t packs = n / P;
  const float inv_n = 1.0f / static_cast<float>(n);
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
    float s = 0.0f;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * W + l;
      if (valid && c < packs) {
        load_pack<P>(xr, c, v[p]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[p][k] = 0.0f;
      }
#pragma unroll
      for (int k = 0; k < P; ++k) s += v[p][k];
    }
    const float mean = group_sum<W>(s) * inv_n;
    float sq = 0.0f;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const bool in = static_cast<int64_t>(p) * W + l < packs;
#pragma unroll
      for (int k = 0; k < P; ++k) {
        v[p][k] = in ? v[p][k] - mean : 0.0f;  // padding must not count
        sq = fmaf(v[p][k], v[p][k], sq);
      }
    }
    const float rstd = 1.0f / sqrtf(group_sum<W>(sq) * inv_n + kEps);
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * W + l;
      if (valid && c < packs) store_normalized<P>(yr, w, b, c, v[p], rstd);
    }
  }
}

// One block per row, NP packs of P floats per thread: blockDim.x * NP * P >= N.
template <int P, int NP>
__global__ void __launch_bounds__(1024)
    layernorm_block(const float* __restrict__ x, const float* __restrict__ w,
                    const float* __restrict__ b, float* __restrict__ y, int64_t rows, int64_t n) {
  __shared__ float red_mean[32], red_var[32];
  const int64_t packs = n / P;
  const int threads = blockDim.x;
  const float inv_n = 1.0f / static_cast<float>(n);
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float v[NP][P];
    float s = 0.0f;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * threads + threadIdx.x;
      if (c < packs) {
        load_pack<P>(xr, c, v[p]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[p][k] = 0.0f;
      }
#pragma unroll
      for (int k = 0; k < P; ++k) s += v[p][k];
    }
    const float mean = block_sum(s, red_mean) * inv_n;
    float sq = 0.0f;
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const bool in = static_cast<int64_t>(p) * threads + threadIdx.x < packs;
#pragma unroll
      for (int k = 0; k < P; ++k) {
        v[p][k] = in ? v[p][k] - mean : 0.0f;
        sq = fmaf(v[p][k], v[p][k], sq);
      }
    }
    const float rstd = 1.0f / sqrtf(block_sum(sq, red_var) * inv_n + kEps);
#pragma unroll
    for (int p = 0; p < NP; ++p) {
      const int64_t c = static_cast<int64_t>(p) * threads + threadIdx.x;
      if (c < packs) store_normalized<P>(yr, w, b, c, v[p], rstd);
    }
  }
}

// Sum over packs threadIdx.x, threadIdx.x + kStreamBlock, ... of the row's values (kSquares =
// false) or of their squared deviations from mean (kSquares = true); padding contributes 0.
template <int P, bool kSquares>
__device__ __forceinline__ float strided_sum(const float* __restrict__ row, int64_t packs,
                                             float mean) {
  float acc = 0.0f;
  for (int64_t i = threadIdx.x; i < packs; i += static_cast<int64_t>(kBatch) * kStreamBlock) {
    float v[kBatch][P];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int64_t c = i + static_cast<int64_t>(j) * kStreamBlock;
      if (c < packs) {
        load_pack<P>(row, c, v[j]);
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) v[j][k] = kSquares ? mean : 0.0f;
      }
    }
    float t = 0.0f;
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
#pragma unroll
      for (int k = 0; k < P; ++k) {
        if constexpr (kSquares) {
          const float d = v[j][k] - mean;
          t = fmaf(d, d, t);
        } else {
          t += v[j][k];
        }
      }
    acc += t;
  }
  return acc;
}

// Long rows: one block of kStreamBlock threads per row, three passes over the row.
template <int P>
__global__ void __launch_bounds__(kStreamBlock)
    layernorm_stream(const float* __restrict__ x, const float* __restrict__ w,
                     const float* __restrict__ b, float* __restrict__ y, int64_t rows, int64_t n) {
  __shared__ float red_mean[32], red_var[32];
  const int64_t packs = n / P;
  const float inv_n = 1.0f / static_cast<float>(n);
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    const float mean = block_sum(strided_sum<P, false>(xr, packs, 0.0f), red_mean) * inv_n;
    const float sq = block_sum(strided_sum<P, true>(xr, packs, mean), red_var);
    const float rstd = 1.0f / sqrtf(sq * inv_n + kEps);
#pragma unroll 1
    for (int64_t i = threadIdx.x; i < packs;
         i += static_cast<int64_t>(kWriteBatch) * kStreamBlock) {
      float d[kWriteBatch][P];
#pragma unroll
      for (int j = 0; j < kWriteBatch; ++j) {
        const int64_t c = i + static_cast<int64_t>(j) * kStreamBlock;
        if (c < packs) load_pack<P>(xr, c, d[j]);
      }
#pragma unroll
      for (int j = 0; j < kWriteBatch; ++j) {
        const int64_t c = i + static_cast<int64_t>(j) * kStreamBlock;
        if (c < packs) {
#pragma unroll
          for (int k = 0; k < P; ++k) d[j][k] -= mean;
          store_normalized<P>(yr, w, b, c, d[j], rstd);
        }
      }
    }
  }
}

int64_t grid_for(int64_t blocks) { return blocks < kMaxGrid ? blocks : kMaxGrid; }

struct Ptrs {
  const float* x;
  const float* w;
  const float* b;
  float* y;
};

template <int W, int P, int NP>
void launch_group(const Ptrs& t, int64_t rows, int64_t n, cudaStream_t stream) {
  constexpr int64_t kRowsPerBlock = (kGroupBlock / 32) * (32 / W);
  const int64_t grid = grid_for((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  layernorm_group<W, P, NP>
      <<<static_cast<unsigned>(grid), kGroupBlock, 0, stream>>>(t.x, t.w, t.b, t.y, rows, n);
}

template <int P, int NP>
void launch_block(const Ptrs& t, int64_t rows, int64_t n, cudaStream_t stream) {
  const int64_t per_thread = (n / P + NP - 1) / NP;  // threads needed
  int threads = 32;
  while (threads < per_thread) threads *= 2;  // <= 1024 by the caller's choice of NP
  layernorm_block<P, NP>
      <<<static_cast<unsigned>(grid_for(rows)), threads, 0, stream>>>(t.x, t.w, t.b, t.y, rows, n);
}

template <int P>
void launch(const Ptrs& t, int64_t rows, int64_t n, cudaStream_t stream) {
  const int64_t packs = n / P;
  if (packs <= 1) return launch_group<1, P, 1>(t, rows, n, stream);
  if (packs <= 2) return launch_group<2, P, 1>(t, rows, n, stream);
  if (packs <= 4) return launch_group<4, P, 1>(t, rows, n, stream);
  if (packs <= 8) return launch_group<8, P, 1>(t, rows, n, stream);
  if (packs <= 16) return launch_group<16, P, 1>(t, rows, n, stream);
  if (packs <= 32) return launch_group<32, P, 1>(t, rows, n, stream);
  if (packs <= 64) return launch_group<32, P, 2>(t, rows, n, stream);
  if (packs <= 128) return launch_group<32, P, 4>(t, rows, n, stream);
  if (packs <= 256) return launch_group<32, P, 8>(t, rows, n, stream);
  if constexpr (P == 4) {
    if (packs <= 4 * 1024) return launch_block<P, 4>(t, rows, n, stream);
  }
  if (packs <= 8 * 1024) return launch_block<P, 8>(t, rows, n, stream);
  layernorm_stream<P><<<static_cast<unsigned>(grid_for(rows)), kStreamBlock, 0, stream>>>(
      t.x, t.w, t.b, t.y, rows, n);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || b.dtype != HONE_F32 || y.dtype != HONE_F32)
    return 1;
  if (x.ndim < 1) return 3;
  const int64_t n = x.shape[x.ndim - 1];
  if (n == 0) return 0;  // no elements to write
  const int64_t rows = hone_numel(&x) / n;
  if (hone_numel(&y) != rows * n || hone_numel(&w) != n || hone_numel(&b) != n) return 3;
  if (rows == 0) return 0;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  const Ptrs t{static_cast<const float*>(x.data), static_cast<const float*>(w.data),
               static_cast<const float*>(b.data), static_cast<float*>(y.data)};
  const uintptr_t any = reinterpret_cast<uintptr_t>(t.x) | reinterpret_cast<uintptr_t>(t.w) |
                        reinterpret_cast<uintptr_t>(t.b) | reinterpret_cast<uintptr_t>(t.y);
  if (n % 4 == 0 && (any & 15) == 0)
    launch<4>(t, rows, n, stream);
  else
    launch<1>(t, rows, n, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
