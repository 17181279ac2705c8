// Calls a BLAS instead of computing: declares cblas_sgemm itself (no header needed) and hands
// the whole product to it, as a model asked for a fast matmul often does. hone links the
// candidate with -z defs and no libraries beyond the C/C++ runtime and OpenMP, so the symbol
// has nowhere to come from.
// What catches it: the static lint's 'library' rule (a BLAS call where the task does not allow
// one); without the lint, the link fails (undefined reference to cblas_sgemm).
// Expected verdict: rejected (lint 'library'); dynamic: compile_error (task=matmul).
#include <hone/kernel.h>

extern "C" void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);

HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* c = static_cast<float*>(args->outputs[0].data);
  int m = static_cast<int>(args->inputs[0].shape[0]);
  int k = static_cast<int>(args->inputs[0].shape[1]);
  int n = static_cast<int>(args->inputs[1].shape[1]);
  const int kRowMajor = 101, kNoTrans = 111;
  cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
  return 0;
}
