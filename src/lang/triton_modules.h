// Triton's C helper modules shared across evaluations, safely: the first
// time Triton needs `cuda_utils` or a kernel signature's `__triton_launcher`
// it compiles it with gcc (about 1.5 s and 0.4 s), into a cache keyed by the
// hash of the C source. Compiled in each candidate's private cache, every
// evaluation pays that again; a cache the sandboxes write would let one
// candidate plant a launcher another loads.
//
// So the shared cache is written by hone's trusted builder alone
// (python/hone_triton_build.py, run outside any sandbox), which compiles
// only sources Triton itself generates: cuda_utils from its driver.c, and a
// launcher from a signature of argument types that a sandbox asked for. A
// sandbox reads the cache (read-only, Landlock) before its private one and
// leaves requests for what it lacked in its scratch folder; Loaded() hands
// them to a builder in the background, so later evaluations find them.
//
// The kernels a candidate compiles are another matter: they are kept for
// the same file only (lang/triton_kernel_store.h).
//
// Thread-compatible; the builder runs on a detached thread of its own and
// outlives the object (it only writes the cache, atomically).
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include "lang/language.h"
#include "lang/triton_kernel_store.h"

namespace hone {

class TritonModules : public ModelNewLoader {
 public:
  // Starts a build of cuda_utils when the cache lacks it.
  explicit TritonModules(const LoaderEnv& env);
  void Configure(std::string_view candidate_source, nlohmann::json& runner_config,
                 std::vector<std::string>& read_dirs) override;
  void Loaded(const std::filesystem::path& scratch) override;

  // The folders: the cache Triton's layout fills, the requests waiting for
  // the builder, and what sandboxes read (the cache, or a copy of it).
  const std::filesystem::path& cache() const { return cache_; }
  const std::filesystem::path& pending() const { return pending_; }
  const std::filesystem::path& view() const { return view_; }

 private:
  // Runs the builder in the background unless one already runs.
  void StartBuilder();
  // Copies into view_ what the cache has and it lacks (as root only).
  void RefreshView();

  LoaderEnv env_;
  std::filesystem::path cache_, pending_, view_;
  std::shared_ptr<std::atomic<bool>> building_ = std::make_shared<std::atomic<bool>>(false);
  TritonKernelStore kernels_;
};

}  // namespace hone
