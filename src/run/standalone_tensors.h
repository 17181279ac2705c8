// One standalone call of a CUDA candidate (sandbox/cuda/standalone.h,
// tools/standalone_call.h) prepared from an evaluation's state: the bound
// slot's inputs, read out of the candidate's arena into files the sandbox
// reads, and its outputs by shape.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "process/arena.h"
#include "run/buffer_layout.h"
#include "run/run_state.h"
#include "tools/standalone_call.h"

namespace hone {

// Writes slot `set`'s inputs (as they are in `arena`) into `scratch` and
// returns the --standalone-tensor specs, inputs first. A Status when a file
// cannot be written.
Result<std::vector<std::string>> StandaloneTensorSpecs(Arena& arena, const SetLayout& set,
                                                       const std::filesystem::path& scratch);

// The call of the candidate `library` on its buffer slot 0 of the bound
// case, in the evaluation's sandbox confinement, its inputs written into
// `scratch`.
Result<StandaloneCall> PrepareStandaloneCall(const RunState& s,
                                             const std::filesystem::path& library,
                                             const std::filesystem::path& scratch);

}  // namespace hone
