// The CUDA backend: .cu candidates built by nvcc for the GPU's own
// architecture, run in hone-sandbox-cuda on device memory shared by CUDA
// IPC (cuda/cuda_arena.h), checked against the worker's own device
// allocations (cuda/cuda_trusted_store.h), with the GPU's measured ceilings
// and NVML sampling (cuda/gpu.h). Registered by the entry points'
// BuiltInBackends() (session/eval_context.cc) in every build: with a CUDA
// toolkit as the backend (cuda_backend.cc), without one as a kind that
// cannot be made and says why (cuda_unavailable.cc). This folder is the
// only one that knows CUDA.
//
// Making it fails with a Status naming what is missing (no driver, no
// device, no hone-sandbox-cuda). Immutable once made; thread-safe as
// run/backend.h says.
#pragma once

#include "run/backend_registry.h"

namespace hone {

// Registers the kind "cuda" (traits: cuda/cuda_traits.h): present when a
// GPU is, its devices the GPUs (BackendKind::count); made on one GPU.
void RegisterCudaBackend(BackendRegistry& registry);

}  // namespace hone
