// cublas_dlopen.cu plus a token kernel of its own: after cuBLAS computes C = A @ B on
// args->stream, a kernel of the candidate's "applies alpha" (multiplies C by 1.0f). The launch
// tracking then sees an own kernel on args->stream, and the result is right. This is the
// "call the library, add a trivial kernel" hack common among generated kernels.
// What must catch it: only the static lint (dynamic-loading: dlopen, dlsym; load-time-code: the
// constructor). The run-time checks alone let it pass: this entry documents that gap (the lint
// is the defence; telling a token kernel from real work at run time is future work).
// Expected verdict (task matmul): rejected (lint); lint off: passed. If cuBLAS cannot be loaded
// on the machine, hone_forward returns 5 (runtime_error).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <hone/kernel.h>

#include <cstdint>

typedef void* Handle;
typedef int (*CreateFn)(Handle*);
typedef int (*SetStreamFn)(Handle, cudaStream_t);
typedef int (*SgemmFn)(Handle, int, int, int, int, int, const float*, const float*, int,
                       const float*, int, const float*, float*, int);
constexpr int kOpN = 0;  // CUBLAS_OP_N

static SetStreamFn g_set_stream = nullptr;
static SgemmFn g_sgemm = nullptr;
static Handle g_handle = nullptr;

__attribute__((constructor)) static void LoadBlas() {
  const char* names[] = {"libcublas.so.13",
                         "libcublas.so.12",
                         "/usr/local/cuda/lib64/libcublas.so.13",
                         "/usr/local/cuda/lib64/libcublas.so.12",
                         "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13",
                         "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.12"};
  void* lib = nullptr;
  for (const char* name : names)
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
  if (!lib) return;
  auto create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
  g_set_stream = reinterpret_cast<SetStreamFn>(dlsym(lib, "cublasSetStream_v2"));
  g_sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cublasSgemm_v2"));
  if (!create || create(&g_handle) != 0) g_handle = nullptr;
}

__global__ void scale_kernel(float* __restrict__ c, int64_t count, float alpha) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) c[i] *= alpha;
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (!g_handle || !g_set_stream || !g_sgemm) return 5;  // cuBLAS not found
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  float* c = static_cast<float*>(args->outputs[0].data);
  const int m = static_cast<int>(a.shape[0]), k = static_cast<int>(a.shape[1]);
  const int n = static_cast<int>(b.shape[1]);
  cudaStream_t stream = static_cast<cudaStream_t>(args->stream);
  if (g_set_stream(g_handle, stream) != 0) return 3;
  if (m == 0 || n == 0) return 0;
  const float one = 1.0f, zero = 0.0f;
  if (g_sgemm(g_handle, kOpN, kOpN, n, m, k, &one, static_cast<const float*>(b.data), n,
              static_cast<const float*>(a.data), k, &zero, c, n) != 0)
    return 4;
  const int64_t count = static_cast<int64_t>(m) * n;
  scale_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(c, count, one);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
