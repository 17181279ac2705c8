// The CUDA backend: .cu candidates built by nvcc for the GPU's own
// architecture, run in hone-sandbox-cuda on device memory shared by CUDA
// IPC (cuda/cuda_arena.h), checked against the worker's own device
// allocations (cuda/cuda_trusted_store.h), with the GPU's measured ceilings
// and NVML sampling (cuda/gpu.h). Built only with a CUDA toolkit; the CLI
// registers it then (cli/context.cc), and this folder is the only one that
// knows CUDA.
//
// Making it fails with a Status naming what is missing (no driver, no
// device, no hone-sandbox-cuda). Immutable once made; thread-safe as
// run/backend.h says.
#pragma once

#include "run/backend_registry.h"

namespace hone {

// Registers the kind "cuda": present when a GPU is; made on one GPU.
void RegisterCudaBackend(BackendRegistry& registry);

}  // namespace hone
