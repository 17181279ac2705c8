// Compat candidates: a KernelBench `ModelNew` file (.py) evaluated as a hone
// candidate, so published generations can be re-scored under hone's
// verification and timing protocol.
//
// hone generates a small C++ "shim" per candidate that embeds the Python
// runner (python/hone_compat.py), the problem's and the candidate's sources
// and the oracle's settings (sizes, model seed), and builds it like any
// candidate. The sandbox loads the shim in compat mode: while it loads,
// before the system-call filter, the shim starts Python (libpython, found
// from the oracle's interpreter), imports torch, runs the candidate's module
// (its load_inline build included) and builds ModelNew under the model seed;
// every hone_forward call then runs ModelNew.forward on hone's buffers
// without copies and copies its results into hone's outputs.
//
// Pure functions and file writes; failures are Status values.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "task/task.h"

namespace hone {

// hone_forward's return value when the candidate's module failed to load
// (its extension did not build, ModelNew raised): a compile error.
inline constexpr int kCompatLoadFailed = 86;

// The interpreter the shim embeds (the oracle's, from its hello reply).
struct CompatRuntime {
  std::string libpython;  // the shared libpython to dlopen
  std::string home;       // PYTHONHOME: sys.base_prefix
  std::vector<std::string> sys_path;
  std::string torch_dir;
  std::string bin_dir;           // the interpreter's folder: a venv keeps ninja there
  std::filesystem::path runner;  // hone_compat.py
};

// From the oracle's hello reply; Status::Unavailable when the interpreter has
// no shared libpython (compat candidates cannot run with it).
Result<CompatRuntime> CompatRuntimeFromHello(const nlohmann::json& hello,
                                             const std::filesystem::path& python_dir);

// What hone reads from a compat candidate's source without running it.
struct CompatSourceInfo {
  bool has_model_new = false;
  bool builds_extension = false;     // load_inline / cpp_extension.load / Triton
  std::vector<std::string> kernels;  // __global__ and @triton.jit function names
};
CompatSourceInfo AnalyzeCompatSource(const std::string& source);

// Writes the shim for `candidate` on `task` (a PyTorch task) into dir and
// returns its path ("compat-<hash>.cpp"; the same inputs give the same file).
Result<std::filesystem::path> WriteCompatShim(const Task& task,
                                              const std::filesystem::path& candidate,
                                              const CompatRuntime& runtime,
                                              const std::filesystem::path& dir);

// Directories the sandbox must let a compat candidate read (Python, torch,
// compilers for load_inline) and the environment it needs.
std::vector<std::string> CompatReadDirs(const CompatRuntime& runtime);
std::vector<std::string> CompatEnvironment(const CompatRuntime& runtime);

}  // namespace hone
