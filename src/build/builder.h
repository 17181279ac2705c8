// Builders turn one candidate source file into a loadable shared object.
//
// A compile error is a successful Build() whose result has ok == false and a
// trimmed log; Status errors are for the builder itself (no compiler, no
// cache directory). Implementations are thread-safe: the build pool calls
// Build() from several threads at once.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

struct BuildResult {
  bool ok = false;
  std::filesystem::path library;  // valid when ok
  std::string log;                // trimmed for a person or an LLM
  std::string full_log;
  std::string command;
  std::string key;             // content hash naming the artifact
  double seconds = 0;          // this call's time (near zero when cached)
  double compile_seconds = 0;  // the compiler's own time, when it ran
  bool cached = false;
  // CUDA: the entry functions compiled (mangled) and what ptxas reported.
  std::vector<std::string> kernels;
  std::string resources;
};

class Builder {
 public:
  virtual ~Builder() = default;
  virtual std::string backend() const = 0;
  virtual Result<BuildResult> Build(const std::filesystem::path& source) = 0;
};

}  // namespace hone
