// The CUDA toolkit's tools that hone runs beside a candidate
// (compute-sanitizer, Nsight Compute's ncu), and the clean environment they
// run in. Thread-safe (no state).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hone {

// `name` on PATH, under CUDA_HOME/bin or in /usr/local/cuda/bin; nothing
// when none is there.
std::optional<std::filesystem::path> FindCudaTool(const std::string& name);

// `env -i` and the variables a tool needs: HOME and TMPDIR in `scratch`
// (the tool keeps its files there), PATH, LD_LIBRARY_PATH and
// CUDA_VISIBLE_DEVICES from the worker. Nothing else of the worker's
// environment (API keys) reaches the candidate.
std::vector<std::string> CleanToolEnvironment(const std::filesystem::path& scratch);

// How long one tool run may take: the environment variable `name` in
// seconds when it is set to a positive number, else `fallback`.
std::chrono::milliseconds ToolTimeout(const char* name, std::chrono::milliseconds fallback);

// A folder for one tool run; removed with everything in it when this goes.
class ToolScratch {
 public:
  ToolScratch() = default;
  ToolScratch(const ToolScratch&) = delete;
  ToolScratch& operator=(const ToolScratch&) = delete;
  ~ToolScratch();
  // Makes the folder under the system's temporary folder, named `prefix`-*:
  // one the sandbox (which drops to 'nobody') can write, or, without
  // `sandbox_writes`, one only the worker's user can (a tool's report).
  bool Create(const std::string& prefix, std::string* error, bool sandbox_writes = true);
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace hone
