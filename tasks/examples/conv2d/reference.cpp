// Reference for conv2d: NCHW cross-correlation (what deep-learning frameworks call convolution),
// stride 1, no padding, plus a per-filter bias:
//   y[n,f,oh,ow] = bias[f] + sum_{c,kh,kw} x[n,c,oh+kh,ow+kw] * w[f,c,kh,kw]
// The sum is accumulated in T in c, kh, kw order; the bias is added last.
#include <hone/kernel.h>

template <typename T>
static void conv2d(const T* x, const T* w, const T* bias, T* y, int64_t n_batch, int64_t c_in,
                   int64_t h, int64_t wd, int64_t f_out, int64_t kh_size, int64_t kw_size) {
  const int64_t oh_size = h - kh_size + 1, ow_size = wd - kw_size + 1;
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t f = 0; f < f_out; ++f) {
      for (int64_t oh = 0; oh < oh_size; ++oh) {
        for (int64_t ow = 0; ow < ow_size; ++ow) {
          T acc = 0;
          for (int64_t c = 0; c < c_in; ++c)
            for (int64_t kh = 0; kh < kh_size; ++kh)
              for (int64_t kw = 0; kw < kw_size; ++kw)
                acc += x[((n * c_in + c) * h + oh + kh) * wd + ow + kw] *
                       w[((f * c_in + c) * kh_size + kh) * kw_size + kw];
          y[((n * f_out + f) * oh_size + oh) * ow_size + ow] = acc + bias[f];
        }
      }
    }
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  hone_tensor& y = args->outputs[0];
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t f = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  if (x.dtype == HONE_F32)
    conv2d(static_cast<const float*>(x.data), static_cast<const float*>(w.data),
           static_cast<const float*>(b.data), static_cast<float*>(y.data), n, c, h, wd, f, kh, kw);
  else if (x.dtype == HONE_F64)
    conv2d(static_cast<const double*>(x.data), static_cast<const double*>(w.data),
           static_cast<const double*>(b.data), static_cast<double*>(y.data), n, c, h, wd, f, kh,
           kw);
  else
    return 1;
  return 0;
}
