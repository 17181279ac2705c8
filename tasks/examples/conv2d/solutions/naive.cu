// Naive conv2d candidate for the GPU: one thread per output pixel. Block row blockIdx.y is one
// (image, filter) pair, so every thread of a block reads the same weights (broadcast loads) and
// neighbouring threads read neighbouring input columns. The bias starts the sum, then the taps
// are added in c, kh, kw order in float.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

__global__ void conv2d_naive(const float* __restrict__ x, const float* __restrict__ w,
                             const float* __restrict__ bias, float* __restrict__ y, int64_t c_in,
                             int64_t h, int64_t wd, int64_t f_out, int64_t kh_size,
                             int64_t kw_size) {
  const int64_t oh_size = h - kh_size + 1, ow_size = wd - kw_size + 1;
  const int64_t pix = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (pix >= oh_size * ow_size) return;
  const int64_t nf = blockIdx.y;  // n * f_out + f
  const int64_t n = nf / f_out, f = nf % f_out;
  const int64_t oh = pix / ow_size, ow = pix % ow_size;
  const float* xn = x + n * c_in * h * wd + oh * wd + ow;
  const float* wf = w + f * c_in * kh_size * kw_size;
  float acc = bias[f];
  for (int64_t c = 0; c < c_in; ++c)
    for (int64_t kh = 0; kh < kh_size; ++kh)
      for (int64_t kw = 0; kw < kw_size; ++kw)
        acc += xn[(c * h + kh) * wd + kw] * wf[(c * kh_size + kh) * kw_size + kw];
  y[nf * oh_size * ow_size + pix] = acc;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 1;
  const hone_tensor& xt = args->inputs[0];
  const hone_tensor& wt = args->inputs[1];
  const hone_tensor& bt = args->inputs[2];
  const hone_tensor& yt = args->outputs[0];
  if (xt.dtype != HONE_F32 || wt.dtype != HONE_F32 || bt.dtype != HONE_F32 || yt.dtype != HONE_F32)
    return 1;
  const int64_t n = xt.shape[0], c = xt.shape[1], h = xt.shape[2], wd = xt.shape[3];
  const int64_t f = wt.shape[0], kh = wt.shape[2], kw = wt.shape[3];
  const int64_t pixels = (h - kh + 1) * (wd - kw + 1);
  if (hone_numel(&yt) == 0) return 0;
  constexpr int kThreads = 128;
  const int64_t bx = (pixels + kThreads - 1) / kThreads;
  if (n * f > 65535 || bx > 0x7fffffff) return 1;
  conv2d_naive<<<dim3(static_cast<unsigned>(bx), static_cast<unsigned>(n * f)), kThreads, 0,
                 static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const float*>(xt.data), static_cast<const float*>(wt.data),
      static_cast<const float*>(bt.data), static_cast<float*>(yt.data), c, h, wd, f, kh, kw);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
