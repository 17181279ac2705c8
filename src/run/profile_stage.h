// The profile stage of an evaluation (EvalOptions::metrics): a passing
// candidate's counters on its timed case, after timing and never during
// it, and the judge's diagnosis of them (measure/profile_judge.h), into
// Verdict::profile. CUDA candidates get Nsight Compute over one call in a
// standalone sandbox (tools/ncu_profile.h); CPU candidates perf_event
// counters on their own sandbox's threads over a few calls
// (tools/cpu_counters.h). The profile is advice: a profiler that is missing
// or fails, or a failure of the worker's own while profiling, leaves
// ProfileReport::not_run saying why and the verdict as it was. The CPU
// profile's calls are calls like any other: one that fails decides the
// verdict, as it would have in timing; they are not started when the
// evaluation's time might run out in them.
//
// Run returns Ok in every case. Borrows everything; not thread-safe.
#pragma once

#include <filesystem>

#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

class ProfileStage {
 public:
  ProfileStage(RunState& state, CandidateRunner& runner, ReferenceSource& reference)
      : s_(state), runner_(runner), reference_(reference) {}

  // `library`: the candidate, built. The timed case must be bound.
  Status Run(const std::filesystem::path& library);

 private:
  // The timed case's first value set, in the candidate's buffer slot 0.
  Status LoadTimedInputs();
  Status ProfileGpu(const std::filesystem::path& library, ProfileReport& report);
  void ProfileCpu(ProfileReport& report);

  RunState& s_;
  CandidateRunner& runner_;
  ReferenceSource& reference_;
};

}  // namespace hone
