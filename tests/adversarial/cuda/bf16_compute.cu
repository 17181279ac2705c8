// Computes out = a + 2 * b in bfloat16: converts a and b to __nv_bfloat16, one __hfma, and back
// to float. bf16 keeps 8 significant bits, so results in [-3, 3] are off by up to ~1e-2.
// What must catch it: the element-wise tolerance (f32 default: atol 1e-4, rtol 1e-4), and behind
// it the float64 precision check.
// Expected verdict: incorrect.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

__global__ void add2_bf16_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 x = __float2bfloat16(a[i]), y = __float2bfloat16(b[i]);
  out[i] = __bfloat162float(__hfma(__float2bfloat16(2.0f), y, x));
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  const int64_t n = hone_numel(&args->outputs[0]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (n == 0) return 0;
  add2_bf16_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, out, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
