// Builds CPU candidates: g++ -O3 -march=native -fopenmp into a shared object,
// cached by content (source, compiler identity, flags, contract header).
// Thread-safe; two threads building the same source both compile and the
// cache keeps one result (wasted work, never a wrong artifact).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "build/builder.h"
#include "build/compile_cache.h"

namespace hone {

struct CpuBuilderOptions {
  std::string compiler = "g++";
  std::vector<std::string> flags = {"-std=c++20", "-O3", "-march=native", "-fopenmp",
                                    "-shared", "-fPIC", "-Wl,-z,defs"};
  std::filesystem::path include_dir;  // empty: FindIncludeDir()
  std::chrono::seconds timeout{120};
};

class CpuBuilder : public Builder {
 public:
  static Result<std::unique_ptr<CpuBuilder>> Create(CompileCache cache,
                                                    CpuBuilderOptions options = {});
  std::string backend() const override { return "cpu"; }
  Result<BuildResult> Build(const std::filesystem::path& source) override;

 private:
  CpuBuilder(CompileCache cache, CpuBuilderOptions options, std::string identity)
      : cache_(std::move(cache)), options_(std::move(options)), identity_(std::move(identity)) {}
  CompileCache cache_;
  CpuBuilderOptions options_;
  std::string identity_;  // compiler binary, flags and header, hashed into every key
};

// Resolves a program name through $PATH ("g++" -> "/usr/bin/g++").
Result<std::filesystem::path> FindProgram(const std::string& name);
// Identity of a compiler binary without running it: real path, size, mtime.
Result<std::string> ProgramIdentity(const std::string& name);

}  // namespace hone
