#include <hone/kernel.h>

template <typename T>
__global__ void Scale(const T* x, T* y, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& x = args->inputs[0];
  int64_t n = hone_numel(&x);
  auto s = static_cast<cudaStream_t>(args->stream);
  unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  if (n == 0) return 0;
  if (x.dtype == HONE_F32)
    Scale<<<blocks, 256, 0, s>>>(static_cast<const float*>(x.data),
                                 static_cast<float*>(args->outputs[0].data), n);
  else if (x.dtype == HONE_F64)
    Scale<<<blocks, 256, 0, s>>>(static_cast<const double*>(x.data),
                                 static_cast<double*>(args->outputs[0].data), n);
  else
    return 1;
  return cudaGetLastError() != cudaSuccess;
}
