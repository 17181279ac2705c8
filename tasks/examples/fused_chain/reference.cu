// GPU reference for fused_chain: out = clamp(relu(x * scale + bias) + residual, -2, 2), where
// scale and bias broadcast over the rows of x. It runs the way eager PyTorch would on a GPU: one
// kernel per operator, one thread per element, each pass reading its operands from and writing
// a full-size temporary to device memory (five kernels). The temporaries live in the workspace;
// like the caching allocator, which hands a freed temporary to the next operator, two buffers
// are reused in turn (t1 -> w0, t2 -> w1, t3 -> w0, t4 -> w1). Templated over T.
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

namespace {

constexpr int kThreads = 256;

// I is the index type: 32-bit when every index fits, as framework kernels do.
template <typename T, typename I>
__global__ void mul_row(const T* __restrict__ a, const T* __restrict__ s, T* __restrict__ out,
                        I total, I n) {
  const I e = static_cast<I>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < total) out[e] = a[e] * s[e % n];
}

template <typename T, typename I>
__global__ void add_row(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                        I total, I n) {
  const I e = static_cast<I>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < total) out[e] = a[e] + b[e % n];
}

template <typename T, typename I>
__global__ void relu(const T* __restrict__ a, T* __restrict__ out, I total) {
  const I e = static_cast<I>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < total) out[e] = a[e] > T(0) ? a[e] : T(0);
}

template <typename T, typename I>
__global__ void add(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                    I total) {
  const I e = static_cast<I>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < total) out[e] = a[e] + b[e];
}

template <typename T, typename I>
__global__ void clamp(const T* __restrict__ a, T* __restrict__ out, I total) {
  const I e = static_cast<I>(blockIdx.x) * kThreads + threadIdx.x;
  if (e < total) out[e] = a[e] < T(-2) ? T(-2) : (a[e] > T(2) ? T(2) : a[e]);
}

template <typename T, typename I>
void chain(const T* x, const T* scale, const T* bias, const T* residual, T* out, T* w0, T* w1,
           I total, I n, unsigned blocks, cudaStream_t st) {
  mul_row<T, I><<<blocks, kThreads, 0, st>>>(x, scale, w0, total, n);  // t1 = x * scale
  add_row<T, I><<<blocks, kThreads, 0, st>>>(w0, bias, w1, total, n);  // t2 = t1 + bias
  relu<T, I><<<blocks, kThreads, 0, st>>>(w1, w0, total);              // t3 = relu(t2)
  add<T, I><<<blocks, kThreads, 0, st>>>(w0, residual, w1, total);     // t4 = t3 + residual
  clamp<T, I><<<blocks, kThreads, 0, st>>>(w1, out, total);            // out = clamp(t4)
}

template <typename T>
int run(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  const int64_t total = hone_numel(&x), n = x.shape[x.ndim - 1];
  if (total == 0) return 0;  // nothing to write
  if (args->workspace == nullptr ||
      args->workspace_bytes < 2 * static_cast<size_t>(total) * sizeof(T))
    return 1;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  if (blocks > 0x7fffffff) return 1;
  T* w0 = static_cast<T*>(args->workspace);
  T* w1 = w0 + total;
  const auto* xp = static_cast<const T*>(x.data);
  const auto* sp = static_cast<const T*>(args->inputs[1].data);
  const auto* bp = static_cast<const T*>(args->inputs[2].data);
  const auto* rp = static_cast<const T*>(args->inputs[3].data);
  T* op = static_cast<T*>(args->outputs[0].data);
  cudaStream_t st = static_cast<cudaStream_t>(args->stream);
  if (total + kThreads <= 0xffffffffLL)
    chain<T, uint32_t>(xp, sp, bp, rp, op, w0, w1, static_cast<uint32_t>(total),
                       static_cast<uint32_t>(n), static_cast<unsigned>(blocks), st);
  else
    chain<T, int64_t>(xp, sp, bp, rp, op, w0, w1, total, n, static_cast<unsigned>(blocks), st);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t num_inputs) {
  if (num_inputs < 1) return 0;
  const size_t elem = inputs[0].dtype == HONE_F64 ? sizeof(double) : sizeof(float);
  return 2 * static_cast<size_t>(hone_numel(&inputs[0])) * elem;  // two full-size temporaries
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (args->num_inputs != 4 || args->num_outputs != 1) return 1;
  const hone_dtype t = args->inputs[0].dtype;
  for (int i = 1; i < 4; ++i)
    if (args->inputs[i].dtype != t) return 1;
  if (args->outputs[0].dtype != t) return 1;
  if (t == HONE_F32) return run<float>(args);
  if (t == HONE_F64) return run<double>(args);
  return 1;
}
