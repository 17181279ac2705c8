// The CUDA backend's registration in a hone built without a CUDA toolkit
// (CMakeLists.txt builds this file instead of the backend): the kind is
// known, with its traits, so that a CUDA candidate or `--backend cuda` is
// told why it cannot run rather than that the name is unknown.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_traits.h"

namespace hone {

void RegisterCudaBackend(BackendRegistry& registry) {
  BackendKind cuda;
  cuda.name = "cuda";
  cuda.traits = CudaTraits();
  cuda.unavailable = "this hone was built without the CUDA backend (no CUDA toolkit)";
  registry.Register(std::move(cuda));
}

}  // namespace hone
