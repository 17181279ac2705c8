// Builds candidates with a compiler into a shared object, cached by content
// (source, compiler identity, flags, contract header): g++ -O3 -march=native
// -fopenmp for the CPU, or a backend's own (nvcc for the GPU's own
// architecture, whose ptxas report is kept as resource usage). Thread-safe; two threads building
// the same source both compile and the cache keeps one result (wasted work,
// never a wrong artifact).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "build/builder.h"
#include "build/compile_cache.h"

namespace hone {

struct CompilerOptions {
  std::string backend;  // the backend's name: "cpu", "cuda" (part of a build's key)
  std::string compiler;
  std::vector<std::string> flags;
  std::filesystem::path include_dir;  // empty: FindIncludeDir()
  std::chrono::seconds timeout{120};
  // The compiler's log holds ptxas's report (nvcc -Xptxas -v): the kernels'
  // names and resources are kept with the build (build/ptxas_report.h).
  bool ptxas_report = false;
};

// g++ for the CPU backend; nvcc's are the CUDA backend's (cuda/cuda_compiler.h).
CompilerOptions CpuCompilerOptions();

class CompilerBuilder : public Builder {
 public:
  static Result<std::unique_ptr<CompilerBuilder>> Create(CompileCache cache,
                                                         CompilerOptions options);
  std::string backend() const override { return options_.backend; }
  Result<BuildResult> Build(const std::filesystem::path& source) override;

 private:
  CompilerBuilder(CompileCache cache, CompilerOptions options, std::string identity)
      : cache_(std::move(cache)), options_(std::move(options)), identity_(std::move(identity)) {}
  CompileCache cache_;
  CompilerOptions options_;
  std::string identity_;  // compiler binary, flags and header, hashed into every key
};

// Resolves a program name through $PATH ("g++" -> "/usr/bin/g++").
Result<std::filesystem::path> FindProgram(const std::string& name);
// Identity of a compiler binary without running it: real path, size, mtime.
Result<std::string> ProgramIdentity(const std::string& name);

}  // namespace hone
