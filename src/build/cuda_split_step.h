// Runs one CUDA compile of a torch extension plan as two halves
// (cuda_split.h): the host half by the plan's C++ compiler with the
// precompiled header of torch/extension.h, the device half by nvcc without
// torch's headers, at once (or host first when launcher templates must be
// instantiated from the host object). About 55 s of a cold build on an H100
// host is nvcc's three front ends parsing torch; this removes them.
//
// It only ever makes a build faster: when the source or the nvcc flags are
// not understood, or either half fails to compile, it returns no result and
// a note saying why, and the caller runs the step whole, as torch would.
// Flags it passes through are an allow-list (defines, include paths, arch,
// optimisation and device-code options); anything else, such as -Xcompiler
// options besides -fPIC or -rdc, keeps the step whole. -ccbin (torch 2.11
// passes its CC) names the compiler nvcc would give the host code; the host
// half is compiled by the plan's C++ compiler instead, the one main.cpp is
// compiled with and linked beside, so the objects agree on the ABI.
//
// Thread-safe (no state); the compiles run in `work`, the build's private
// folder, and write <stem>.hone_host.{cpp,o} and <stem>.hone_device.{cu,o}.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "build/torch_extension.h"
#include "core/subprocess.h"

namespace hone {

class TorchPch;

struct CudaSplitStepResult {
  std::vector<std::filesystem::path> objects;  // replace the step's output: host, device
  std::vector<std::string> argv;               // the device compile, for the log's command
  CommandResult run;                           // both compiles' output; seconds: wall
  std::string note;                            // "split: host half 3.1 s, device half 0.9 s"
};

// `nvcc` is the plan's CUDA compile and `cxx` one of its C++ compiles (the
// host half takes its flags), both relocated into `work`; `pch` may be null.
// nullopt when the step should run whole; `why` (may be null) then says why.
std::optional<CudaSplitStepResult> RunCudaSplitStep(const TorchExtensionStep& nvcc,
                                                    const TorchExtensionStep& cxx,
                                                    const std::filesystem::path& work,
                                                    TorchPch* pch, std::chrono::seconds timeout,
                                                    std::string* why);

// The nvcc flags the host half must also see: -D and -U options of `nvcc`
// that `cxx` lacks, as NAME or NAME=VALUE ("-UNAME" as "!NAME"). Status
// Invalid names the first nvcc flag outside the allow-list.
Result<std::vector<std::string>> HostOnlyDefines(const std::vector<std::string>& nvcc,
                                                 const std::vector<std::string>& cxx);

}  // namespace hone
