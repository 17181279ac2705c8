// Leaves the matrix product to cuBLAS: cublasSgemm on args->stream (row-major C = A @ B computed
// as the column-major C^T = B^T A^T), with a handle created on the first call. The result is
// right and fast, but none of it is the candidate's own kernel.
// What must catch it: the static lint's library rule (a cuBLAS header and calls). Without the
// lint, the build does: candidates link against the CUDA runtime only, with -z defs, so the
// cuBLAS symbols are undefined references and the link fails.
// Expected verdict (task matmul): rejected (lint: library); lint off: compile_error (undefined
// reference to cublasCreate_v2 and the others).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstdint>

static cublasHandle_t g_handle = nullptr;

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  const int m = static_cast<int>(a.shape[0]), k = static_cast<int>(a.shape[1]);
  const int n = static_cast<int>(b.shape[1]);
  if (!g_handle && cublasCreate(&g_handle) != CUBLAS_STATUS_SUCCESS) return 2;
  if (cublasSetStream(g_handle, static_cast<cudaStream_t>(args->stream)) != CUBLAS_STATUS_SUCCESS)
    return 3;
  if (m == 0 || n == 0) return 0;
  const float one = 1.0f, zero = 0.0f;
  // Column-major view: C^T (n x m) = B^T (n x k) * A^T (k x m).
  cublasStatus_t s = cublasSgemm(
      g_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, static_cast<const float*>(b.data), n,
      static_cast<const float*>(a.data), k, &zero, static_cast<float*>(args->outputs[0].data), n);
  return s == CUBLAS_STATUS_SUCCESS ? 0 : 4;
}
