// The start of an evaluation's sandboxes, once the shape cases are known:
// the memory plan (run/memory_plan.h) for the memory free now, the arenas
// and the trusted store sized for the largest case, then the reference's,
// the candidate's and (when they fit beside) a PyTorch task's baselines'
// sandboxes spawned together, so they load at once (on a GPU each spends
// most of its start creating a CUDA context), and awaited.
//
// A candidate that fails to load is the verdict (runtime_error, or rejected
// for a sandbox rule its constructors broke); a reference that fails to
// load, or an evaluation that cannot fit in memory, is a Status. Spawns
// from the evaluating thread, which outlives the sandboxes. Borrows
// everything; not thread-safe.
#pragma once

#include <filesystem>

#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"
#include "run/sandbox_launcher.h"

namespace hone {

class StartStage {
 public:
  // `pytorch`: null unless a PyTorch task's (its baselines start in Run).
  StartStage(RunState& state, SandboxLauncher& launcher, CandidateRunner& runner,
             ReferenceSource& reference, PyTorchPath* pytorch)
      : s_(state), launcher_(launcher), runner_(runner), reference_(reference), pytorch_(pytorch) {}

  // `cand_lib`: the candidate's library (a compat candidate's shim).
  Status Run(const std::filesystem::path& cand_lib);

  // Another process of the candidate on the same arena, for timing it in
  // several (pytorch/timing_processes.h): spawned now, awaited by AwaitLoad,
  // whose outcome Loaded judges: a failed load decides the verdict (and
  // Loaded returns false).
  Result<std::unique_ptr<SandboxProcess>> SpawnAnother(const std::filesystem::path& cand_lib);
  Result<CallOutcome> AwaitLoad(std::unique_ptr<SandboxProcess>& sandbox,
                                const std::filesystem::path& cand_lib);
  bool Loaded(std::unique_ptr<SandboxProcess>& sandbox, const CallOutcome& startup);

 private:
  // Sizes the evaluation's buffers to the memory free now.
  Status PlanMemoryUse();
  // The arenas and the trusted store, sized for the largest case.
  Status Allocate();
  Result<SandboxConfig> CandidateConfig(const std::filesystem::path& cand_lib) const;

  RunState& s_;
  SandboxLauncher& launcher_;
  CandidateRunner& runner_;
  ReferenceSource& reference_;
  PyTorchPath* pytorch_;
};

}  // namespace hone
