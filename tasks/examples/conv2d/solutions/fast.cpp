// Fast conv2d candidate: direct convolution, register-blocked over filters and output columns.
//  - Weights are repacked once per call as [filter block][c][kh][kw][RF] so the RF = 4 weights of
//    one tap are contiguous and can be broadcast one after another.
//  - Each tile computes RF filters x 16 output columns of one output row in 8 AVX2 accumulators:
//    per tap it loads 2 input vectors and broadcasts 4 weights for 8 FMAs. An 8-column tile
//    and a scalar loop take the remaining columns, so any width works.
//  - OpenMP parallelizes over (image, filter block, output row); a task's input rows
//    (C x KH x W) and weight block stay in L1/L2.
// There is no im2col buffer and nothing outside the tensors is read.
#include <hone/kernel.h>

#include <algorithm>
#include <vector>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace {

constexpr int64_t RF = 4;  // filters per register block

struct Conv {
  const float* x;
  const float* wp;  // packed weights
  const float* bias;
  float* y;
  int64_t C, H, W, F, KH, KW, OH, OW;
  int64_t taps() const { return C * KH * KW; }
};

// Scalar path: output columns [ow0, OW) of row oh, filters f0 .. f0 + nf of image n.
void row_scalar(const Conv& p, int64_t n, int64_t f0, int64_t nf, int64_t oh, int64_t ow0) {
  const float* wblk = p.wp + (f0 / RF) * p.taps() * RF;
  const float* xn = p.x + n * p.C * p.H * p.W;
  for (int64_t r = 0; r < nf; ++r) {
    float* yrow = p.y + ((n * p.F + f0 + r) * p.OH + oh) * p.OW;
    for (int64_t ow = ow0; ow < p.OW; ++ow) {
      float acc = 0.0f;
      const float* wk = wblk + r;
      for (int64_t c = 0; c < p.C; ++c)
        for (int64_t kh = 0; kh < p.KH; ++kh) {
          const float* xr = xn + (c * p.H + oh + kh) * p.W + ow;
          for (int64_t kw = 0; kw < p.KW; ++kw, wk += RF) acc += xr[kw] * *wk;
        }
      yrow[ow] = acc + p.bias[f0 + r];
    }
  }
}

#ifdef __AVX2__
// RF filters x (8 * NV) output columns starting at ow of row oh of image n.
template <int NV>
inline void tile(const Conv& p, int64_t n, int64_t f0, int64_t nf, int64_t oh, int64_t ow) {
  __m256 acc[RF][NV];
  for (int r = 0; r < RF; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_setzero_ps();
  const float* wk = p.wp + (f0 / RF) * p.taps() * RF;
  const float* xbase = p.x + (n * p.C * p.H + oh) * p.W + ow;
  for (int64_t c = 0; c < p.C; ++c) {
    for (int64_t kh = 0; kh < p.KH; ++kh) {
      const float* xr = xbase + (c * p.H + kh) * p.W;
      for (int64_t kw = 0; kw < p.KW; ++kw, wk += RF) {
        __m256 xv[NV];
        for (int v = 0; v < NV; ++v) xv[v] = _mm256_loadu_ps(xr + kw + 8 * v);
        for (int r = 0; r < RF; ++r) {
          const __m256 wv = _mm256_broadcast_ss(wk + r);
          for (int v = 0; v < NV; ++v) acc[r][v] = _mm256_fmadd_ps(wv, xv[v], acc[r][v]);
        }
      }
    }
  }
  for (int r = 0; r < nf; ++r) {
    const __m256 b = _mm256_set1_ps(p.bias[f0 + r]);
    float* yrow = p.y + ((n * p.F + f0 + r) * p.OH + oh) * p.OW + ow;
    for (int v = 0; v < NV; ++v) _mm256_storeu_ps(yrow + 8 * v, _mm256_add_ps(acc[r][v], b));
  }
}
#endif

void row(const Conv& p, int64_t n, int64_t f0, int64_t nf, int64_t oh) {
  int64_t ow = 0;
#ifdef __AVX2__
  for (; ow + 16 <= p.OW; ow += 16) tile<2>(p, n, f0, nf, oh, ow);
  for (; ow + 8 <= p.OW; ow += 8) tile<1>(p, n, f0, nf, oh, ow);
#endif
  if (ow < p.OW) row_scalar(p, n, f0, nf, oh, ow);
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& xt = args->inputs[0];
  const hone_tensor& wt = args->inputs[1];
  const hone_tensor& bt = args->inputs[2];
  hone_tensor& yt = args->outputs[0];
  if (xt.dtype != HONE_F32 || wt.dtype != HONE_F32 || bt.dtype != HONE_F32 || yt.dtype != HONE_F32)
    return 1;
  Conv p;
  p.x = static_cast<const float*>(xt.data);
  p.bias = static_cast<const float*>(bt.data);
  p.y = static_cast<float*>(yt.data);
  const int64_t N = xt.shape[0];
  p.C = xt.shape[1];
  p.H = xt.shape[2];
  p.W = xt.shape[3];
  p.F = wt.shape[0];
  p.KH = wt.shape[2];
  p.KW = wt.shape[3];
  p.OH = p.H - p.KH + 1;
  p.OW = p.W - p.KW + 1;
  if (N <= 0 || p.F <= 0 || p.OH <= 0 || p.OW <= 0) return 0;

  // Repack weights [F][C][KH][KW] -> [F / RF][C][KH][KW][RF], zero-padding the last block.
  const int64_t fblocks = (p.F + RF - 1) / RF, taps = p.taps();
  std::vector<float> wp(static_cast<size_t>(fblocks * taps * RF), 0.0f);
  const float* w = static_cast<const float*>(wt.data);
  for (int64_t f = 0; f < p.F; ++f)
    for (int64_t t = 0; t < taps; ++t) wp[((f / RF) * taps + t) * RF + f % RF] = w[f * taps + t];
  p.wp = wp.data();

#pragma omp parallel for collapse(3) schedule(static)
  for (int64_t n = 0; n < N; ++n)
    for (int64_t fb = 0; fb < fblocks; ++fb)
      for (int64_t oh = 0; oh < p.OH; ++oh) row(p, n, fb * RF, std::min(RF, p.F - fb * RF), oh);
  return 0;
}
