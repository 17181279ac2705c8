// Correct CPU candidate: direct 2D convolution (stride 1, no padding, dilation 1) plus bias.
// x [N, C, H, W], weight [O, C, KH, KW], bias [O] -> out [N, O, H - KH + 1, W - KW + 1].
#include "hone/kernel.h"

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 2;
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  if (x.dtype != HONE_F32 || w.dtype != HONE_F32 || b.dtype != HONE_F32 || y.dtype != HONE_F32)
    return 1;
  if (x.ndim != 4 || w.ndim != 4 || b.ndim != 1 || y.ndim != 4) return 3;
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t o = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  const int64_t oh = h - kh + 1, ow = wd - kw + 1;
  if (w.shape[1] != c || b.shape[0] != o || y.shape[0] != n || y.shape[1] != o ||
      y.shape[2] != oh || y.shape[3] != ow)
    return 3;
  const float* xp = static_cast<const float*>(x.data);
  const float* wp = static_cast<const float*>(w.data);
  const float* bp = static_cast<const float*>(b.data);
  float* yp = static_cast<float*>(y.data);
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double s = bp[oc];
          for (int64_t ic = 0; ic < c; ++ic) {
            const float* xc = xp + ((in * c + ic) * h + i) * wd + j;
            const float* wc = wp + (oc * c + ic) * kh * kw;
            for (int64_t p = 0; p < kh; ++p)
              for (int64_t q = 0; q < kw; ++q)
                s += static_cast<double>(xc[p * wd + q]) * wc[p * kw + q];
          }
          yp[((in * o + oc) * oh + i) * ow + j] = static_cast<float>(s);
        }
  return 0;
}
