// One standalone call of a CUDA candidate (sandbox/cuda/standalone.h), for
// the tools that run it outside the worker protocol (compute-sanitizer,
// ncu): what the call needs and the sandbox's command line. The pipeline
// prepares one from an evaluation (run/standalone_tensors.h). Plain values.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hone {

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

// The sandbox's command line for the call.
std::vector<std::string> StandaloneCommand(const StandaloneCall& call);

// The environment a tool runs the call in: CleanToolEnvironment's (`env -i`
// and what the tool needs, tools/cuda_tools.h) plus the call's own (a
// ModelNew shim's Python, its profiler marks). Every tool that runs a call
// starts its command line with it.
std::vector<std::string> StandaloneEnvironment(const StandaloneCall& call);

}  // namespace hone
