// The profile stage of an evaluation (EvalOptions::metrics): a passing
// candidate's counters on its timed case, after timing and never during
// it, and the judge's diagnosis of them (measure/profile_judge.h), into
// Verdict::profile. What measures the counters is the backend's own
// Profiler (Backend::MakeProfiler): a CUDA candidate's is Nsight Compute
// over one call in a standalone sandbox (cuda/ncu_profiler.h); a CPU
// candidate's perf_event counters on its own sandbox's threads over a few
// calls (MakeHostCountersProfiler). The profile is advice: a backend
// without a profiler, a profiler that is missing or fails, or a failure of
// the worker's own while profiling, leaves ProfileReport::not_run saying
// why and the verdict as it was. The host counters' calls are calls like
// any other: one that fails decides the verdict, as it would have in
// timing; they are not started when the evaluation's time might run out in
// them.
//
// Run returns Ok in every case. Borrows everything; not thread-safe.
#pragma once

#include <filesystem>
#include <memory>

#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

// What measures a passing candidate's counters on one backend, made for one
// evaluation by Backend::MakeProfiler. Not thread-safe.
class Profiler {
 public:
  virtual ~Profiler() = default;
  // Its counters are the host threads' (the judge reads them against the
  // machine's cores and the evaluation's threads), not a device's.
  virtual bool host_counters() const = 0;
  // Fills `report` (its tool, counters and calls) for the candidate
  // `library` on the timed case, whose first value set is in the
  // candidate's buffer slot 0. A missing tool or too little time left is
  // report.not_run; a failure of the worker's own is a Status.
  virtual Status Profile(RunState& s, CandidateRunner& runner, const std::filesystem::path& library,
                         ProfileReport& report) = 0;
};

// perf_event counters on the candidate's own sandbox threads over enough
// calls to cover about a quarter of a second (tools/cpu_counters.h): the
// CPU backend's profiler.
std::unique_ptr<Profiler> MakeHostCountersProfiler();

class ProfileStage {
 public:
  ProfileStage(RunState& state, CandidateRunner& runner, ReferenceSource& reference)
      : s_(state), runner_(runner), reference_(reference) {}

  // `library`: the candidate, built. The timed case must be bound.
  Status Run(const std::filesystem::path& library);

 private:
  // The timed case's first value set, in the candidate's buffer slot 0.
  Status LoadTimedInputs();

  RunState& s_;
  CandidateRunner& runner_;
  ReferenceSource& reference_;
};

}  // namespace hone
