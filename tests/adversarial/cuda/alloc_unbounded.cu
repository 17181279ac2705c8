// Grabs device memory in 1 GiB cudaMalloc blocks until cudaMalloc fails (out of device memory,
// or of address space under the sandbox's RLIMIT_AS), capped at 4096 blocks so the loop always
// ends. It then clears the (non-sticky) allocation error with cudaGetLastError (so hone sees the
// return value, not a CUDA error), frees every block so other work on the GPU gets the memory
// back at once, and returns 7 without launching anything.
// Expected verdict: runtime_error ("hone_forward returned 7 ...").
#include <cuda_runtime.h>
#include <hone/kernel.h>

#include <cstddef>

static void* g_blocks[4096];

HONE_EXPORT int hone_forward(const hone_args* args) {
  (void)args;
  const size_t kBlock = size_t(1) << 30;
  int count = 0;
  while (count < 4096 && cudaMalloc(&g_blocks[count], kBlock) == cudaSuccess) ++count;
  (void)cudaGetLastError();  // the failed cudaMalloc set the last error; clear it
  for (int k = 0; k < count; ++k) cudaFree(g_blocks[k]);
  return 7;
}
