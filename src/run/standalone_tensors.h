// One standalone call of a CUDA candidate (sandbox/cuda/standalone.h), for
// the tools that run it outside the worker protocol (compute-sanitizer,
// ncu): the bound slot's inputs, read out of the candidate's arena into
// files the sandbox reads, its outputs by shape, and the sandbox's command
// line.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "run/arena.h"
#include "run/buffer_layout.h"
#include "run/run_state.h"

namespace hone {

// Writes slot `set`'s inputs (as they are in `arena`) into `scratch` and
// returns the --standalone-tensor specs, inputs first. A Status when a file
// cannot be written.
Result<std::vector<std::string>> StandaloneTensorSpecs(Arena& arena, const SetLayout& set,
                                                       const std::filesystem::path& scratch);

struct StandaloneCall {
  std::filesystem::path sandbox;  // hone-sandbox-cuda
  std::filesystem::path library;  // the candidate, built
  std::string pci_bus_id;
  std::filesystem::path scratch;         // the inputs' files; writable by the sandbox
  std::vector<std::string> tensors;      // --standalone-tensor specs, inputs first
  std::vector<std::string> confinement;  // ConfinementArgs: --read-dir, --no-seccomp, ...
  // A ModelNew file's shim: the sandbox runs it in compat mode, with the
  // compat runner's environment (Python's, and torch's caching allocator
  // off, so that each tensor is an allocation of its own a tool can bound).
  bool compat = false;
  std::vector<std::string> env;  // NAME=VALUE, added to the tool's clean environment
};

// The call of the candidate `library` on its buffer slot 0 of the bound
// case, in the evaluation's sandbox confinement, its inputs written into
// `scratch`.
Result<StandaloneCall> PrepareStandaloneCall(const RunState& s,
                                             const std::filesystem::path& library,
                                             const std::filesystem::path& scratch);

// The sandbox's command line for the call.
std::vector<std::string> StandaloneCommand(const StandaloneCall& call);

}  // namespace hone
