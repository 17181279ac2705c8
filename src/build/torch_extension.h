// Builds torch C++/CUDA extensions (a ModelNew's load_inline / load) from a
// plan the oracle prepared: python/hone_extbuild.py wrote the sources as the
// installed torch's load_inline would and listed the exact compile and link
// commands torch would run (TorchExtensionPlan). hone runs them here, outside
// the sandbox: the independent compiles (C++ and CUDA) at once, then the
// link, each under a time limit, with a gcc precompiled header of
// torch/extension.h for the C++ step (torch_pch.h). A CUDA source is built
// as two halves where it can be (cuda_split_step.h), so that torch's headers
// are not parsed by nvcc; the link then takes both halves' objects.
//
// Results are cached by content under the cache folder (as CompileCache
// entries: <key>.so and <key>.json, written by rename): the key covers the
// plan's own key (the call's arguments), the toolchain, every command with
// the plan's build folder taken out, the compilers' identities and the
// sources' bytes. A failed build is cached with its log; a timed-out one is
// not (the next try may have the machine to itself). A hit costs a few file
// reads.
//
// Thread-safe: each build runs in a private temporary copy of the build
// folder, so several threads may build different plans, or the same plan,
// at once (the same plan twice is wasted work, never a wrong artifact).
// A compile error is a BuildResult with ok == false and a trimmed log;
// Status errors are for the builder itself (a compiler that cannot start,
// a plan whose sources are missing, an unwritable cache).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "build/builder.h"
#include "build/compile_cache.h"
#include "build/torch_pch.h"
#include "core/status.h"

namespace hone {

struct TorchExtensionStep {
  std::string id;                             // what it makes: "main.o", "cuda.cuda.o", "<name>.so"
  std::string kind;                           // "cxx", "nvcc" or "link"
  std::vector<std::string> argv;              // run in the build folder
  std::vector<std::filesystem::path> inputs;  // absolute
  std::vector<std::filesystem::path> outputs;  // absolute
};

struct TorchToolchain {
  std::string torch;  // torch.__version__
  std::string cxx;    // first line of `c++ --version`
  std::string nvcc;   // last line of `nvcc --version`; "" without CUDA
  std::vector<std::string> cuda_arch_flags;
};

struct TorchExtensionPlan {
  std::string key;                  // hone_extbuild.extension_key of the call's arguments
  std::string kind;                 // "load_inline" or "load"
  std::string name;                 // the module name (TORCH_EXTENSION_NAME)
  std::filesystem::path build_dir;  // where the oracle wrote the sources
  std::filesystem::path library;    // <build_dir>/<name>.so, the link's output
  bool with_cuda = false;
  bool is_python_module = true;
  TorchToolchain toolchain;
  std::vector<TorchExtensionStep> steps;
};

// The plan from the oracle's prepare_extension reply. {"ok": false} and
// malformed replies are Status::Invalid naming the field.
Result<TorchExtensionPlan> TorchExtensionPlanFromJson(const nlohmann::json& reply);

// The cache key of a plan's build (32 hex digits): the same for two plans
// that differ only in their build folder. Reads the sources; a missing one
// is Status::NotFound.
Result<std::string> TorchExtensionCacheKey(const TorchExtensionPlan& plan);

struct TorchExtensionOptions {
  std::chrono::seconds step_timeout{600};
  bool precompiled_header = true;  // gcc only; see torch_pch.h
  // A missing header is built by a detached process while this build goes
  // without it (torch_pch.h); false: the build waits for the header.
  bool header_in_background = true;
  // Compile each CUDA source as a host half (gcc, precompiled header) and a
  // device half (nvcc without torch), see cuda_split_step.h. HONE_CUDA_SPLIT=0
  // in the environment turns it off, to compare.
  bool split_cuda = true;
};

class TorchExtensionBuilder {
 public:
  explicit TorchExtensionBuilder(std::filesystem::path cache_dir,
                                 TorchExtensionOptions options = {});

  // Builds (or finds) the plan's library. BuildResult.library is the cached
  // .so, which stays valid while the cache does.
  Result<BuildResult> Build(const TorchExtensionPlan& plan);
  // Whether Build would find the plan's library in the cache (no compile).
  bool Cached(const TorchExtensionPlan& plan) const;

  const std::filesystem::path& cache_dir() const { return cache_dir_; }

  // Starts building the precompiled headers this builder's builds went
  // without (torch_pch.h: StartWantedBuilds); WaitForHeaders waits, up to
  // `limit`, for those it started.
  void StartHeaderBuilds();
  void WaitForHeaders(std::chrono::seconds limit);

 private:
  Result<BuildResult> BuildUncached(const TorchExtensionPlan& plan, const std::string& key);

  std::filesystem::path cache_dir_;
  TorchExtensionOptions options_;
  CompileCache cache_;
  std::unique_ptr<TorchPch> pch_;
};

}  // namespace hone
