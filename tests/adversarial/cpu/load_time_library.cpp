// Calls a BLAS it loads itself: a constructor (run while the sandbox loads the library, before
// the post-load seccomp filter forbids opening files and mapping code) dlopens the system's
// BLAS (OpenBLAS, the reference libblas, MKL, whichever exists) and looks up cblas_sgemm; the
// kernel hands the product to it, or falls back to a plain loop where no BLAS is installed.
// The link has no undefined symbol, so unlike calls_library.cpp it builds and loads.
// What catches it: the static lint ('dynamic-loading', 'load-time-code'). Without the lint
// nothing does on the CPU: the sandbox lets the loader read system library directories while
// the candidate loads, and a correct result from a library is still a correct result. The
// dynamic verdict records that the lint is the only line here.
// Expected verdict: rejected (lint); dynamic: passed (task=matmul).
#include <dlfcn.h>
#include <hone/kernel.h>

#include <cstdio>
#include <initializer_list>

using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                       float, float*, int);
static Sgemm g_sgemm = nullptr;
static const char* g_from = "none";

__attribute__((constructor)) static void FindBlas() {
  for (const char* lib : {"libopenblas.so.0", "libmkl_rt.so", "libblas.so.3", "libcblas.so.3"}) {
    if (void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL)) {
      if ((g_sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm")))) {
        g_from = lib;
        return;
      }
    }
  }
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  static bool told = false;
  if (!told) {
    told = true;
    std::printf("load_time_library: cblas_sgemm from %s\n", g_from);
  }
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* c = static_cast<float*>(args->outputs[0].data);
  int m = static_cast<int>(args->inputs[0].shape[0]);
  int k = static_cast<int>(args->inputs[0].shape[1]);
  int n = static_cast<int>(args->inputs[1].shape[1]);
  if (g_sgemm) {
    g_sgemm(101, 111, 111, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);  // row-major, no transposes
    return 0;
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
  return 0;
}
