// The tensors of a standalone call (sandbox/cuda/standalone.h): a buffer
// slot's inputs, read out of the candidate's arena into files the sandbox
// reads, and its outputs by shape. For the tools that run one call of a
// CUDA candidate outside the worker protocol (compute-sanitizer, ncu).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "run/arena.h"
#include "run/buffer_layout.h"

namespace hone {

// Writes slot `set`'s inputs (as they are in `arena`) into `scratch` and
// returns the --standalone-tensor specs, inputs first. A Status when a file
// cannot be written.
Result<std::vector<std::string>> StandaloneTensorSpecs(Arena& arena, const SetLayout& set,
                                                       const std::filesystem::path& scratch);

}  // namespace hone
