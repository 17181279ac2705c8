#include "cuda/cuda_mps.h"

#include <cstring>

namespace hone {

std::vector<std::string> CudaMpsClientEnvironment(const char* const* environment) {
  std::vector<std::string> out;
  for (const char* const* e = environment; e && *e; ++e)
    if (std::strncmp(*e, "CUDA_MPS_", 9) == 0 && std::strchr(*e, '=')) out.emplace_back(*e);
  return out;
}

}  // namespace hone
