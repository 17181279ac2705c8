// GPU reference for conv2d: NCHW cross-correlation, stride 1, no padding, per-filter bias:
//   y[n,f,oh,ow] = bias[f] + sum_{c,kh,kw} x[n,c,oh+kh,ow+kw] * w[f,c,kh,kw]
// One thread per output element (flat index, ow fastest, so a warp reads consecutive x and one
// weight), summing in T in c, kh, kw order and adding the bias last, like reference.cpp. No
// tiling or shared memory: the honest untuned baseline. Templated over T (float, double).
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

template <typename T>
__global__ void conv2d_kernel(const T* __restrict__ x, const T* __restrict__ w,
                              const T* __restrict__ bias, T* __restrict__ y, int64_t n_batch,
                              int64_t c_in, int64_t h, int64_t wd, int64_t f_out, int64_t kh_size,
                              int64_t kw_size) {
  const int64_t oh_size = h - kh_size + 1, ow_size = wd - kw_size + 1;
  const int64_t total = n_batch * f_out * oh_size * ow_size;
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int64_t ow = idx % ow_size;
  const int64_t oh = (idx / ow_size) % oh_size;
  const int64_t f = (idx / (ow_size * oh_size)) % f_out;
  const int64_t n = idx / (ow_size * oh_size * f_out);
  T acc = 0;
  for (int64_t c = 0; c < c_in; ++c)
    for (int64_t kh = 0; kh < kh_size; ++kh)
      for (int64_t kw = 0; kw < kw_size; ++kw)
        acc += x[((n * c_in + c) * h + oh + kh) * wd + ow + kw] *
               w[((f * c_in + c) * kh_size + kh) * kw_size + kw];
  y[idx] = acc + bias[f];
}

template <typename T>
int run(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const hone_tensor& w = args->inputs[1];
  const hone_tensor& b = args->inputs[2];
  const hone_tensor& y = args->outputs[0];
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t f = w.shape[0], kh = w.shape[2], kw = w.shape[3];
  const int64_t total = hone_numel(&y);
  if (total == 0) return 0;  // nothing to write
  constexpr int kThreads = 256;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffff) return 1;
  conv2d_kernel<T>
      <<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
          static_cast<const T*>(x.data), static_cast<const T*>(w.data),
          static_cast<const T*>(b.data), static_cast<T*>(y.data), n, c, h, wd, f, kh, kw);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 3 || args->num_outputs != 1) return 1;
  const hone_dtype t = args->inputs[0].dtype;
  if (args->inputs[1].dtype != t || args->inputs[2].dtype != t || args->outputs[0].dtype != t)
    return 1;
  if (t == HONE_F32) return run<float>(args);
  if (t == HONE_F64) return run<double>(args);
  return 1;
}
