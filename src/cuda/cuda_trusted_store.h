// TrustedStore on one GPU: the worker's own device allocations, never
// exported by IPC, so no sandbox can map them. Arenas must be CudaArenas on
// the same device. Comparisons run as kernels (cuda/device_compare.h).
// Contract and error handling as in run/trusted_store.h.
#pragma once

#include <memory>

#include "run/trusted_store.h"

namespace hone {

Result<std::unique_ptr<TrustedStore>> CreateCudaTrustedStore(int device);

}  // namespace hone
