// The stages on sources, before anything runs: the static lint of the
// candidate (its language's rules, lang/language.h: a native language's
// over the text, verify/lint.h; a ModelNew file's on its scan, the PyTorch
// path's, run/reference_source.h), then the builds on a two-thread
// BuildPool: the reference source's (a native task's reference, which must
// compile), the candidate's or a compat candidate's shim, and a PyTorch
// task's baseline shims. A lint finding is a rejected verdict and a candidate that does not
// compile a compile_error, both through RunState; Status is for a broken
// task or environment. Borrows everything; not thread-safe.
#pragma once

#include <filesystem>

#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

class BuildStage {
 public:
  // `pytorch`: null unless a PyTorch task's (a compat candidate's always is).
  BuildStage(RunState& state, ReferenceSource& reference, PyTorchPath* pytorch)
      : s_(state), reference_(reference), pytorch_(pytorch) {}

  Status Lint(const std::filesystem::path& candidate);
  // `*cand_lib`: the candidate's library, once built.
  Status Build(const std::filesystem::path& candidate, std::filesystem::path* cand_lib);

 private:
  // The candidate's build into the verdict (a compat candidate's shim adds
  // to its extensions' build).
  void RecordBuild(const BuildResult& cand);

  RunState& s_;
  ReferenceSource& reference_;
  PyTorchPath* pytorch_;
};

}  // namespace hone
