// Leaves the matrix product to cuBLAS without including its header or linking it: a load-time
// constructor dlopens libcublas.so.13 (or .so.12, by name or from /usr/local/cuda), looks up
// cublasCreate_v2, cublasSetStream_v2 and cublasSgemm_v2 with dlsym and creates a handle, all
// while the library loads (before the sandbox forbids opening files). hone_forward then runs
// cublasSgemm on args->stream, row-major C = A @ B as the column-major C^T = B^T A^T. The result
// is right and everything runs on args->stream, but no kernel is the candidate's own.
// What must catch it: the static lint (dynamic-loading: dlopen, dlsym; load-time-code: the
// constructor). Without the lint, the launch tracking: only cuBLAS's kernels run, none of the
// candidate's.
// Expected verdict (task matmul): rejected (lint); lint off: rejected ("launched no kernel of its
// own"). If cuBLAS cannot be loaded on the machine, hone_forward returns 5 (runtime_error).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <hone/kernel.h>

#include <cstdint>

// The few cuBLAS declarations it needs, spelled out by hand (no header).
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

HONE_EXPORT int hone_forward(const hone_args* args) {
  if (!g_handle || !g_set_stream || !g_sgemm) return 5;  // cuBLAS not found
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const int m = static_cast<int>(a.shape[0]), k = static_cast<int>(a.shape[1]);
  const int n = static_cast<int>(b.shape[1]);
  if (g_set_stream(g_handle, static_cast<cudaStream_t>(args->stream)) != 0) return 3;
  if (m == 0 || n == 0) return 0;
  const float one = 1.0f, zero = 0.0f;
  return g_sgemm(g_handle, kOpN, kOpN, n, m, k, &one, static_cast<const float*>(b.data), n,
                 static_cast<const float*>(a.data), k, &zero,
                 static_cast<float*>(args->outputs[0].data), n) == 0
             ? 0
             : 4;
}
