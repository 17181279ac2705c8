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

// The sandbox's command line for one standalone call: `sandbox` (hone-
// sandbox-cuda) on the GPU `pci_bus_id`, the built `library`, its files in
// `scratch`, then `confinement` (ConfinementArgs) and the tensors' specs.
std::vector<std::string> StandaloneCommand(const std::filesystem::path& sandbox,
                                           const std::string& pci_bus_id,
                                           const std::filesystem::path& library,
                                           const std::filesystem::path& scratch,
                                           const std::vector<std::string>& confinement,
                                           const std::vector<std::string>& tensors);

}  // namespace hone
