// Fast attention candidate for the GPU: a flash-attention-style fused kernel in FP32 on the CUDA
// cores (no tensor cores: TF32 would fail the task's float64 precision check). The S x S score
// matrix is never materialized.
//  - A 256-thread block owns BQ = 16*TR query rows of one batch and walks over the keys in tiles
//    of BKV = 16*TK. Q stays in shared memory for the whole walk; each K and V tile is copied in
//    with cp.async (16-byte copies when D % 4 == 0, 4-byte otherwise, zero-filled past S and D),
//    the next K tile while P @ V runs and the next V tile while Q @ K^T runs.
//  - Thread t owns TR consecutive query rows (row group t / 16) and, in Q @ K^T, the TK keys
//    t % 16 + 16*i, so the 16 lanes that share a row group hold the whole key tile: the row max
//    is 4 xor-shuffles and each lane keeps a partial row sum that is reduced once at the end.
//    Scores are scaled into base 2 (scale * log2 e) so the online softmax uses exp2f. The
//    probabilities go to shared memory (key-major), and in P @ V the same thread owns the D/16
//    output columns 64*c + 4*(t % 16) + {0..3} (2*(t % 16) + {0, 1} for D <= 32) of its rows, so
//    the running max, sum and the rescaling of the output stay in registers.
//  - The head size is padded to kD = 32, 64 or 128 (D <= 128; larger D returns 1). Shared-memory
//    rows are padded (and Q rows of consecutive row groups staggered) so the float4 reads of
//    every phase are free of bank conflicts.
// Configurations (rows x keys per tile, shared memory): kD = 32: 128 x 64, 68 KiB; kD = 64:
// 128 x 64, 100 KiB; kD = 128: 64 x 32, 74 KiB; two blocks (16 warps) per SM, so at most 128
// registers. At that cap ptxas spills a few words for kD = 64 (5 reloaded once per key tile, next
// to ~8K FMAs); on an H200 this ran 4% faster than the spill-free build at one block per SM.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cmath>
#include <cstdint>

namespace {

template <int kD, int TR, int TK, int RG>
struct Tile {
  static constexpr int NT = 16 * RG;   // threads: 16 lanes x RG row groups
  static constexpr int BQ = RG * TR;   // query rows per block
  static constexpr int BKV = 16 * TK;  // keys per tile
  static constexpr int TD = kD / 16;   // output columns per thread
  static constexpr int QLD = kD + 4, KLD = kD + 4, VLD = kD, PLD = BQ + 4;
  static constexpr int Q_FLOATS = BQ * QLD + RG * 4;  // + the stagger of the row groups
  static constexpr int K_FLOATS = BKV * KLD;
  static constexpr int V_FLOATS = BKV * VLD;
  static constexpr int P_FLOATS = BKV * PLD;
  static constexpr size_t BYTES = sizeof(float) * (Q_FLOATS + K_FLOATS + V_FLOATS + P_FLOATS);
  // Offset of query row r in Qs: row groups (TR rows) start 4 floats apart modulo 32 banks.
  static __device__ __forceinline__ int qrow(int r) { return r * QLD + (r / TR) * 4; }
};

__device__ __forceinline__ void cp_async16(float* dst, const float* src, bool ok) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
               "r"(ok ? 16 : 0));
}
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool ok) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
               "r"(ok ? 4 : 0));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Copies rows [r0, r0 + ROWS) x columns [0, kD) of a [S][D] matrix into shared memory (row r at
// sm + row_off(r)), zero-filling rows >= S and columns >= D.
template <int NT, int kD, int ROWS, bool kVec, typename RowOff>
__device__ __forceinline__ void load_tile(float* sm, RowOff row_off, const float* g, int r0, int S,
                                          int D) {
  if constexpr (kVec) {
    constexpr int CPR = kD / 4;  // 16-byte chunks per row
    static_assert((ROWS * CPR) % NT == 0, "tile must split evenly over the threads");
#pragma unroll 1
    for (int it = 0; it < ROWS * CPR / NT; ++it) {
      const int idx = it * NT + static_cast<int>(threadIdx.x);
      const int r = idx / CPR, d = (idx % CPR) * 4;
      const bool ok = r0 + r < S && d < D;  // D % 4 == 0: the whole chunk is in range
      cp_async16(sm + row_off(r) + d, ok ? g + static_cast<int64_t>(r0 + r) * D + d : g, ok);
    }
  } else {
    static_assert((ROWS * kD) % NT == 0, "tile must split evenly over the threads");
#pragma unroll 1
    for (int it = 0; it < ROWS * kD / NT; ++it) {
      const int idx = it * NT + static_cast<int>(threadIdx.x);
      const int r = idx / kD, d = idx % kD;
      const bool ok = r0 + r < S && d < D;
      cp_async4(sm + row_off(r) + d, ok ? g + static_cast<int64_t>(r0 + r) * D + d : g, ok);
    }
  }
}

template <int kD, int TR, int TK, int RG, int MINB, bool kVec>
__global__ void __launch_bounds__(16 * RG, MINB)
    flash_fwd(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
              float* __restrict__ out, int S, int D, int nqb, float sl2) {
  using T = Tile<kD, TR, TK, RG>;
  constexpr int NT = T::NT, BQ = T::BQ, BKV = T::BKV, TD = T::TD;
  extern __shared__ __align__(16) float smem[];
  float* Qs = smem;
  float* Ks = Qs + T::Q_FLOATS;
  float* Vs = Ks + T::K_FLOATS;
  float* Ps = Vs + T::V_FLOATS;

  const int tid = threadIdx.x;
  const int kg = tid & 15;  // key lane (Q @ K^T) and column lane (P @ V)
  const int rg = tid >> 4;  // row group: rows rg*TR .. rg*TR + TR-1 of the block
  const int b = blockIdx.x / nqb;
  const int q0 = (blockIdx.x % nqb) * BQ;
  const int64_t boff = static_cast<int64_t>(b) * S * D;
  const float* qb = q + boff;
  const float* kb = k + boff;
  const float* vb = v + boff;

  const auto q_off = [](int r) { return T::qrow(r); };
  const auto k_off = [](int r) { return r * T::KLD; };
  const auto v_off = [](int r) { return r * T::VLD; };

  load_tile<NT, kD, BQ, kVec>(Qs, q_off, qb, q0, S, D);
  load_tile<NT, kD, BKV, kVec>(Ks, k_off, kb, 0, S, D);
  cp_async_commit();
  load_tile<NT, kD, BKV, kVec>(Vs, v_off, vb, 0, S, D);
  cp_async_commit();

  float o[TR][TD];
  float m[TR], l[TR];
#pragma unroll
  for (int r = 0; r < TR; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
#pragma unroll
    for (int c = 0; c < TD; ++c) o[r][c] = 0.0f;
  }
  const float* qt = Qs + T::qrow(rg * TR);  // row rg*TR + r is at qt + r * QLD

  // First of this thread's output columns in chunk c (4 columns; 2 when kD = 32).
  const auto col = [kg](int c) { return TD >= 4 ? c * 64 + kg * 4 : kg * 2; };

  const int ntiles = (S + BKV - 1) / BKV;
  for (int t = 0; t < ntiles; ++t) {
    const int kv0 = t * BKV;
    cp_async_wait<1>();  // Q and this K tile have landed; this V tile may still be in flight
    __syncthreads();

    // s[r][i] = q_(rg*TR + r) . k_(kv0 + kg + 16 i)
    float s[TR][TK];
#pragma unroll
    for (int r = 0; r < TR; ++r)
#pragma unroll
      for (int i = 0; i < TK; ++i) s[r][i] = 0.0f;
#pragma unroll
    for (int d = 0; d < kD; d += 4) {
      float4 kk[TK];
#pragma unroll
      for (int i = 0; i < TK; ++i)
        kk[i] = *reinterpret_cast<const float4*>(Ks + (kg + 16 * i) * T::KLD + d);
#pragma unroll
      for (int r = 0; r < TR; ++r) {
        const float4 qq = *reinterpret_cast<const float4*>(qt + r * T::QLD + d);
#pragma unroll
        for (int i = 0; i < TK; ++i) {
          s[r][i] = fmaf(qq.x, kk[i].x, s[r][i]);
          s[r][i] = fmaf(qq.y, kk[i].y, s[r][i]);
          s[r][i] = fmaf(qq.z, kk[i].z, s[r][i]);
          s[r][i] = fmaf(qq.w, kk[i].w, s[r][i]);
        }
      }
    }

    // Online softmax in base 2. Keys past S score -inf (every tile has at least one valid key,
    // so the running max is finite from the first tile on and exp2f never sees inf - inf).
    const bool partial = kv0 + BKV > S;
#pragma unroll
    for (int r = 0; r < TR; ++r) {
      float mx = -INFINITY;
#pragma unroll
      for (int i = 0; i < TK; ++i) {
        float x = s[r][i] * sl2;
        if (partial && kv0 + kg + 16 * i >= S) x = -INFINITY;
        s[r][i] = x;
        mx = fmaxf(mx, x);
      }
#pragma unroll
      for (int w = 1; w < 16; w <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, w));
      const float mn = fmaxf(m[r], mx);
      const float alpha = exp2f(m[r] - mn);  // 0 on the first tile (m = -inf)
      m[r] = mn;
      float ls = 0.0f;
#pragma unroll
      for (int i = 0; i < TK; ++i) {
        const float p = exp2f(s[r][i] - mn);
        s[r][i] = p;
        ls += p;
      }
      l[r] = fmaf(l[r], alpha, ls);
#pragma unroll
      for (int c = 0; c < TD; ++c) o[r][c] *= alpha;
    }

    // P, key-major: Ps[j][row].
#pragma unroll
    for (int i = 0; i < TK; ++i)
#pragma unroll
      for (int r = 0; r < TR; r += 4)
        *reinterpret_cast<float4*>(Ps + (kg + 16 * i) * T::PLD + rg * TR + r) =
            make_float4(s[r][i], s[r + 1][i], s[r + 2][i], s[r + 3][i]);

    cp_async_wait<0>();  // this V tile has landed
    __syncthreads();     // P and V visible to all; every thread is done with Ks
    if (t + 1 < ntiles) {
      load_tile<NT, kD, BKV, kVec>(Ks, k_off, kb, kv0 + BKV, S, D);
      cp_async_commit();
    }

    // o[r][:] += sum_j P[j][row r] * V[j][:]
#pragma unroll 8
    for (int j = 0; j < BKV; ++j) {
      float p[TR];
#pragma unroll
      for (int r = 0; r < TR; r += 4) {
        const float4 pp = *reinterpret_cast<const float4*>(Ps + j * T::PLD + rg * TR + r);
        p[r] = pp.x;
        p[r + 1] = pp.y;
        p[r + 2] = pp.z;
        p[r + 3] = pp.w;
      }
      float vv[TD];
      if constexpr (TD >= 4) {
#pragma unroll
        for (int c = 0; c < TD / 4; ++c) {
          const float4 x = *reinterpret_cast<const float4*>(Vs + j * T::VLD + col(c));
          vv[4 * c] = x.x;
          vv[4 * c + 1] = x.y;
          vv[4 * c + 2] = x.z;
          vv[4 * c + 3] = x.w;
        }
      } else {
        const float2 x = *reinterpret_cast<const float2*>(Vs + j * T::VLD + col(0));
        vv[0] = x.x;
        vv[1] = x.y;
      }
#pragma unroll
      for (int r = 0; r < TR; ++r)
#pragma unroll
        for (int c = 0; c < TD; ++c) o[r][c] = fmaf(p[r], vv[c], o[r][c]);
    }
    __syncthreads();  // every thread is done with Vs and Ps
    if (t + 1 < ntiles) {
      load_tile<NT, kD, BKV, kVec>(Vs, v_off, vb, kv0 + BKV, S, D);
      cp_async_commit();
    }
  }

  // Normalize by the row sums (partial per lane until now) and store.
#pragma unroll
  for (int r = 0; r < TR; ++r) {
#pragma unroll
    for (int w = 1; w < 16; w <<= 1) l[r] += __shfl_xor_sync(0xffffffffu, l[r], w);
    const int row = q0 + rg * TR + r;
    if (row >= S) continue;
    const float inv = 1.0f / l[r];
    float* orow = out + boff + static_cast<int64_t>(row) * D;
    if constexpr (TD >= 4) {
#pragma unroll
      for (int c = 0; c < TD / 4; ++c) {
        const int d = col(c);
        if (kVec) {
          if (d < D)
            *reinterpret_cast<float4*>(orow + d) =
                make_float4(o[r][4 * c] * inv, o[r][4 * c + 1] * inv, o[r][4 * c + 2] * inv,
                            o[r][4 * c + 3] * inv);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (d + e < D) orow[d + e] = o[r][4 * c + e] * inv;
        }
      }
    } else {
#pragma unroll
      for (int e = 0; e < TD; ++e)
        if (col(0) + e < D) orow[col(0) + e] = o[r][e] * inv;
    }
  }
}

template <int kD, int TR, int TK, int RG, int MINB, bool kVec>
int launch(const float* q, const float* k, const float* v, float* out, int64_t B, int64_t S,
           int64_t D, cudaStream_t stream) {
  using T = Tile<kD, TR, TK, RG>;
  const int64_t nqb = (S + T::BQ - 1) / T::BQ;
  if (nqb * B > 0x7fffffff) return 1;
  auto kernel = flash_fwd<kD, TR, TK, RG, MINB, kVec>;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(T::BYTES)) != cudaSuccess)
    return 1;
  // scale * log2(e), rounded once.
  const float sl2 = static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(D)));
  kernel<<<static_cast<unsigned>(nqb * B), T::NT, T::BYTES, stream>>>(
      q, k, v, out, static_cast<int>(S), static_cast<int>(D), static_cast<int>(nqb), sl2);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

template <bool kVec>
int dispatch(const float* q, const float* k, const float* v, float* out, int64_t B, int64_t S,
             int64_t D, cudaStream_t stream) {
  // kD, rows per thread, keys per thread, row groups (threads / 16), min. blocks per SM.
  if (D <= 32) return launch<32, 8, 4, 16, 2, kVec>(q, k, v, out, B, S, D, stream);
  if (D <= 64) return launch<64, 8, 4, 16, 2, kVec>(q, k, v, out, B, S, D, stream);
  return launch<128, 4, 2, 16, 2, kVec>(q, k, v, out, B, S, D, stream);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 1;
  const hone_tensor& qt = args->inputs[0];
  for (int i = 0; i < 3; ++i)
    if (args->inputs[i].dtype != HONE_F32 || args->inputs[i].ndim != 3) return 1;
  if (args->outputs[0].dtype != HONE_F32) return 1;
  const int64_t B = qt.shape[0], S = qt.shape[1], D = qt.shape[2];
  if (B * S * D == 0) return 0;        // nothing to write
  if (D > 128) return 1;               // the kernel keeps at most 128 columns per row
  if (S > 0x7fffffff - 256) return 1;  // rows are 32-bit inside the kernel
  const auto* q = static_cast<const float*>(qt.data);
  const auto* k = static_cast<const float*>(args->inputs[1].data);
  const auto* v = static_cast<const float*>(args->inputs[2].data);
  auto* out = static_cast<float*>(args->outputs[0].data);
  const bool aligned = (reinterpret_cast<uintptr_t>(q) | reinterpret_cast<uintptr_t>(k) |
                        reinterpret_cast<uintptr_t>(v) | reinterpret_cast<uintptr_t>(out)) %
                           16 ==
                       0;
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (aligned && D % 4 == 0) return dispatch<true>(q, k, v, out, B, S, D, stream);
  return dispatch<false>(q, k, v, out, B, S, D, stream);
}
