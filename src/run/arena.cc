#include "run/arena.h"

#include "run/shared_arena.h"
#if HONE_HAVE_CUDA
#include "cuda/cuda_arena.h"
#endif

namespace hone {

bool HaveCudaBackend() { return HONE_HAVE_CUDA != 0; }

Result<std::unique_ptr<Arena>> CreateArena(const std::string& backend, size_t bytes, int device) {
  if (backend == "cpu") {
    HONE_ASSIGN_OR_RETURN(auto a, SharedArena::Create(bytes));
    return std::unique_ptr<Arena>(std::move(a));
  }
#if HONE_HAVE_CUDA
  if (backend == "cuda") {
    HONE_ASSIGN_OR_RETURN(auto a, CudaArena::Create(bytes, device));
    return std::unique_ptr<Arena>(std::move(a));
  }
#endif
  (void)device;
  if (backend == "cuda") return Status::Unavailable("this hone was built without the CUDA backend");
  return Status::Invalid("unknown backend '" + backend + "'");
}

}  // namespace hone
