// The CUDA backend's profiler (run/profile_stage.h): Nsight Compute over one
// call of the candidate in a standalone sandbox (tools/ncu_profile.h), on
// the timed case's first value set. A ModelNew's process launches kernels
// of its own before its forward (loading, constructing the model, the
// warm-up that autotunes): its shim marks the forward, and ncu profiles
// that span alone. ncu not found is ProfileReport::not_run; the profile
// stays within what is left of the evaluation's time. Not thread-safe.
#pragma once

#include <memory>

#include "run/profile_stage.h"

namespace hone {

std::unique_ptr<Profiler> MakeNcuProfiler();

}  // namespace hone
