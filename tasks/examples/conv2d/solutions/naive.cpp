// Naive conv2d candidate: for each output row, accumulate one (c, kh, kw) tap at a time across
// the whole row, so the inner loop is a contiguous axpy over output columns.
#include <hone/kernel.h>

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& xt = args->inputs[0];
  const hone_tensor& wt = args->inputs[1];
  const hone_tensor& bt = args->inputs[2];
  hone_tensor& yt = args->outputs[0];
  if (xt.dtype != HONE_F32 || wt.dtype != HONE_F32 || bt.dtype != HONE_F32 || yt.dtype != HONE_F32)
    return 1;
  const float* x = static_cast<const float*>(xt.data);
  const float* w = static_cast<const float*>(wt.data);
  const float* bias = static_cast<const float*>(bt.data);
  float* y = static_cast<float*>(yt.data);
  const int64_t N = xt.shape[0], C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t F = wt.shape[0], KH = wt.shape[2], KW = wt.shape[3];
  const int64_t OH = H - KH + 1, OW = W - KW + 1;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t f = 0; f < F; ++f) {
      for (int64_t oh = 0; oh < OH; ++oh) {
        float* yrow = y + ((n * F + f) * OH + oh) * OW;
        for (int64_t ow = 0; ow < OW; ++ow) yrow[ow] = bias[f];
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t kh = 0; kh < KH; ++kh) {
            const float* xrow = x + ((n * C + c) * H + oh + kh) * W;
            for (int64_t kw = 0; kw < KW; ++kw) {
              const float wv = w[((f * C + c) * KH + kh) * KW + kw];
              for (int64_t ow = 0; ow < OW; ++ow) yrow[ow] += wv * xrow[ow + kw];
            }
          }
        }
      }
    }
  }
  return 0;
}
