// Fast CUDA row_sum candidate (f32) for Hopper (sm_90a): y[r] = sum_i x[r, i].
//
// Memory-bound reduction; the aim is to keep enough 16-byte loads in flight to saturate HBM.
//  - Rows are read as float4 when N % 4 == 0 and x is 16-byte aligned (then every row start is
//    16-byte aligned too), else as coalesced scalars.
//  - Each thread issues kBatch (8) independent loads before adding any of them (predicated at the
//    row end, so short and ragged rows keep the same parallelism), adds the batch as a pairwise
//    tree and keeps 4 partial sums per float4 lane: more accurate than one running sum.
//  - Many rows (R >= 2048) or short rows (<= 256 loads): a group of W lanes of one warp per row,
//    W = the power of two <= 32 that gives each lane about one batch, so a warp sums 32 / W rows
//    at once (W = 1 for N = 1: one thread per row, loads coalesced across rows). The group's
//    partial sums are combined with __shfl_xor_sync inside the W-lane group; no shared memory.
//  - Few long rows: one block per row (64..1024 threads), warp shuffles then one shared-memory
//    slot per warp (32 floats, conflict-free) and a last warp shuffle.
//  - Grids are one group/block per row (grid-stride loops only past the grid-size limit).
//  - Rows of length 0 give 0 (cudaMemsetAsync on the stream).
// Not handled specially: very few (< ~132) extremely long rows run one block per row, so they
// use only that many SMs; splitting a row over blocks would need a second pass.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kBatch = 8;            // independent loads in flight per thread (power of two)
constexpr int kGroupBlock = 256;     // threads per block of the warp-group kernel
constexpr int64_t kManyRows = 2048;  // rows from which a row per warp (group) fills the GPU
constexpr int64_t kMaxGrid = 0x7fffffff;

__device__ __forceinline__ float4 add4(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// Sum of units first, first + stride, ... (< units) of row, read as float4 (VEC) or float.
template <bool VEC>
__device__ __forceinline__ float partial_sum(const float* __restrict__ row, int64_t units,
                                             int64_t first, int stride) {
  const int64_t step = static_cast<int64_t>(kBatch) * stride;
  if constexpr (VEC) {
    const float4* p = reinterpret_cast<const float4*>(row);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int64_t i = first; i < units; i += step) {
      float4 v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t k = i + static_cast<int64_t>(j) * stride;
        v[j] = k < units ? p[k] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int w = kBatch / 2; w >= 1; w /= 2)
#pragma unroll
        for (int j = 0; j < w; ++j) v[j] = add4(v[j], v[j + w]);
      acc = add4(acc, v[0]);
    }
    return (acc.x + acc.y) + (acc.z + acc.w);
  } else {
    float acc = 0.0f;
    for (int64_t i = first; i < units; i += step) {
      float v[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t k = i + static_cast<int64_t>(j) * stride;
        v[j] = k < units ? row[k] : 0.0f;
      }
#pragma unroll
      for (int w = kBatch / 2; w >= 1; w /= 2)
#pragma unroll
        for (int j = 0; j < w; ++j) v[j] += v[j + w];
      acc += v[0];
    }
    return acc;
  }
}

__device__ __forceinline__ float warp_sum(float s) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}

// W lanes (a power of two <= 32) per row, 32 / W rows per warp.
template <int W, bool VEC>
__global__ void __launch_bounds__(kGroupBlock)
    row_sum_group(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t n) {
  constexpr int kRowsPerWarp = 32 / W;
  const int lane = threadIdx.x & 31;
  const int64_t units = VEC ? n / 4 : n;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * kGroupBlock + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * kGroupBlock) >> 5;
// r0 depends only on the warp, so the whole warp runs the same iterations (the shuffles below
// need every lane); lanes of a row past the end only skip their loads and the store.
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r0 = warp * kRowsPerWarp; r0 < rows; r0 += warps * kRowsPerWarp) {
    const int64_t r = r0 + lane / W;
    float s = 0.0f;
    if (r < rows) s = partial_sum<VEC>(x + r * n, units, lane % W, W);
#pragma unroll
    for (int o = W / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (r < rows && lane % W == 0) y[r] = s;
  }
}

// One block (blockDim.x a multiple of 32, <= 1024) per row.
template <bool VEC>
__global__ void __launch_bounds__(1024)
    row_sum_block(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t n) {
  __shared__ float warp_sums[32];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const int nwarps = blockDim.x >> 5;
  const int64_t units = VEC ? n / 4 : n;
#pragma unroll 1  // grid-stride: no trip-count division
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    float s = warp_sum(partial_sum<VEC>(x + r * n, units, threadIdx.x, blockDim.x));
    if (lane == 0) warp_sums[wid] = s;
    __syncthreads();
    if (wid == 0) {
      s = warp_sum(lane < nwarps ? warp_sums[lane] : 0.0f);
      if (lane == 0) y[r] = s;
    }
    __syncthreads();  // warp_sums is rewritten for the next row
  }
}

template <int W, bool VEC>
void launch_group(const float* x, float* y, int64_t rows, int64_t n, cudaStream_t stream) {
  constexpr int64_t kRowsPerBlock = (kGroupBlock / 32) * (32 / W);
  int64_t grid = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (grid > kMaxGrid) grid = kMaxGrid;
  row_sum_group<W, VEC><<<static_cast<unsigned>(grid), kGroupBlock, 0, stream>>>(x, y, rows, n);
}

template <bool VEC>
void launch(const float* x, float* y, int64_t rows, int64_t n, cudaStream_t stream) {
  const int64_t units = VEC ? n / 4 : n;
  const int64_t per_lane = (units + kBatch - 1) / kBatch;  // batches' worth of lanes needed
  if (rows >= kManyRows || per_lane <= 32) {
    if (per_lane <= 1) return launch_group<1, VEC>(x, y, rows, n, stream);
    if (per_lane <= 2) return launch_group<2, VEC>(x, y, rows, n, stream);
    if (per_lane <= 4) return launch_group<4, VEC>(x, y, rows, n, stream);
    if (per_lane <= 8) return launch_group<8, VEC>(x, y, rows, n, stream);
    if (per_lane <= 16) return launch_group<16, VEC>(x, y, rows, n, stream);
    return launch_group<32, VEC>(x, y, rows, n, stream);
  }
  int threads = 64;  // per_lane > 32 here, so at least 64 threads have a full batch
  while (threads < 1024 && threads < per_lane) threads *= 2;
  const int64_t grid = rows < kMaxGrid ? rows : kMaxGrid;
  row_sum_block<VEC><<<static_cast<unsigned>(grid), threads, 0, stream>>>(x, y, rows, n);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 1 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || y.dtype != HONE_F32) return 1;
  if (x.ndim < 1) return 3;
  const int64_t n = x.shape[x.ndim - 1], rows = hone_numel(&y);
  if (rows * n != hone_numel(&x)) return 3;
  if (rows == 0) return 0;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  const float* xp = static_cast<const float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  if (n == 0) {
    if (cudaMemsetAsync(yp, 0, static_cast<size_t>(rows) * sizeof(float), stream) != cudaSuccess)
      return 4;
  } else if (n % 4 == 0 && (reinterpret_cast<uintptr_t>(xp) & 15) == 0) {
    launch<true>(xp, yp, rows, n, stream);
  } else {
    launch<false>(xp, yp, rows, n, stream);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
