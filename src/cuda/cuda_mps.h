// CUDA MPS (the Multi-Process Service reward farms colocate jobs with) as a
// sandbox meets it. A CUDA client finds the MPS control daemon through
// CUDA_MPS_PIPE_DIRECTORY (default /tmp/nvidia-mps) and takes its limits from
// other CUDA_MPS_* variables; hone's sandboxes start from an environment of
// hone's own (process/sandbox_spawn.h), so without these a candidate would
// miss the daemon its worker joined and make a context of its own beside the
// MPS server (which a GPU in EXCLUSIVE_PROCESS mode, MPS's usual setting,
// refuses). The sandbox makes its context before it drops to 'nobody', so it
// joins the worker's user's MPS server (MPS serves one user at a time).
//
// Built with or without a CUDA toolkit; pure functions, any thread.
#pragma once

#include <string>
#include <vector>

namespace hone {

// The CUDA_MPS_* entries ("NAME=value") of an environ-style list.
std::vector<std::string> CudaMpsClientEnvironment(const char* const* environment);

}  // namespace hone
