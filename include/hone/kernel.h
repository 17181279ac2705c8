/* hone candidate contract, ABI version 1.
 *
 * A candidate is one source file (.cpp for the CPU backend, .cu for CUDA)
 * that includes this header and exports `hone_forward`. hone builds it into a
 * shared object, loads it in an untrusted sandbox process and calls it with
 * tensors that hone allocated. This header is plain C, needs no PyTorch and no
 * other include, so a candidate compiles in a second or two.
 *
 * Rules a candidate must follow (the verifier checks them):
 *  - Read only `inputs`, write every element of every output. Outputs are
 *    poisoned (NaN or a sentinel) before every call; inputs are restored
 *    before every call and compared with a pristine copy after it.
 *  - Do all work before returning (CPU) or on `stream` (CUDA). Work left on
 *    another stream or thread after return is caught and rejected.
 *  - No files, processes, sockets or other system access: the sandbox
 *    forbids them and the verdict names the rule that was broken.
 *  - Return 0 on success; any other value is reported as a runtime error.
 *
 * Shapes and strides are in elements, not bytes. hone passes contiguous
 * row-major tensors today; a candidate should still read `stride` if it wants
 * to stay correct when hone passes views.
 */
#ifndef HONE_KERNEL_H_
#define HONE_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#define HONE_ABI_VERSION 1
#define HONE_MAX_DIMS 8

#ifdef __cplusplus
#define HONE_EXTERN_C extern "C"
#else
#define HONE_EXTERN_C
#endif

#if defined(_WIN32)
#define HONE_EXPORT HONE_EXTERN_C __declspec(dllexport)
#else
#define HONE_EXPORT HONE_EXTERN_C __attribute__((visibility("default")))
#endif

typedef enum {
  HONE_F32 = 0,
  HONE_F64 = 1,
  HONE_F16 = 2,
  HONE_BF16 = 3,
  HONE_I8 = 4,
  HONE_U8 = 5,
  HONE_I16 = 6,
  HONE_I32 = 7,
  HONE_I64 = 8,
  HONE_BOOL = 9
} hone_dtype;

typedef struct {
  void* data; /* host memory on CPU, device memory on CUDA */
  hone_dtype dtype;
  int32_t ndim; /* 0 for a scalar (0-d tensor) */
  int64_t shape[HONE_MAX_DIMS];
  int64_t stride[HONE_MAX_DIMS]; /* in elements */
} hone_tensor;

typedef struct {
  const hone_tensor* inputs;
  int32_t num_inputs;
  hone_tensor* outputs;
  int32_t num_outputs;
  void* stream; /* cudaStream_t on CUDA, NULL on CPU */
  void* workspace; /* hone_workspace_bytes() bytes, 256-byte aligned, or NULL */
  size_t workspace_bytes;
} hone_args;

/* Required. Computes outputs from inputs. Returns 0 on success. */
HONE_EXPORT int hone_forward(const hone_args* args);

/* Optional. Scratch memory the candidate needs for these inputs; hone
 * allocates it once per shape case and input buffer and passes it as
 * args->workspace. */
HONE_EXPORT size_t hone_workspace_bytes(const hone_tensor* inputs, int32_t num_inputs);

/* Convenience for candidates: number of elements of a tensor. */
static inline int64_t hone_numel(const hone_tensor* t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

/* Convenience for candidates: bytes of one element of `t` (0 for a value
 * that is no hone_dtype). */
static inline size_t hone_dtype_size(hone_dtype t) {
  switch (t) {
    case HONE_F64:
    case HONE_I64:
      return 8;
    case HONE_F32:
    case HONE_I32:
      return 4;
    case HONE_F16:
    case HONE_BF16:
    case HONE_I16:
      return 2;
    case HONE_I8:
    case HONE_U8:
    case HONE_BOOL:
      return 1;
  }
  return 0;
}

#endif /* HONE_KERNEL_H_ */
