// The worker's calls into the candidate's sandbox (RunState::cand) during
// one evaluation: binding a shape case's buffer slots, and each call with
// its deadline (the per-call limit, which scales with the reference's
// slowest call, cut to what is left of the evaluation's total), followed by
// the per-call checks (run/candidate_checks.h).
//
// A call that fails is the verdict (runtime_error, timeout, rejected for a
// broken sandbox rule, compile_error for a compat module that failed to
// load), recorded as a failed check named "call". The worker's own failures
// (its arena, its store) go to RunState::env_failure. Not thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "run/candidate_checks.h"
#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

class CandidateRunner {
 public:
  CandidateRunner(RunState& state, CandidateChecks& checks) : s_(state), checks_(checks) {}

  // Lays out the candidate's buffer slots for `cs` and writes the canaries
  // around them, has `reference` bind its own, then binds the candidate's
  // (its hone_workspace_bytes runs). A Status is the reference's failure or
  // the worker's; a candidate that fails to bind is the verdict.
  Status BindCase(const CaseShapes& cs, ReferenceSource& reference);
  // Runs the candidate on buffer slot `set` as it is (inputs restored and
  // outputs poisoned by the caller); false when the call or a per-call check
  // failed (the verdict is decided) or the worker failed (env_failure).
  bool Call(int set, uint32_t flags, const std::string& during, CallOutcome* out,
            uint64_t rng_seed = 0);
  // A failed call, start or bind as the verdict, and a failed "call" check.
  void Fail(const CallOutcome& o, const std::string& during);

 private:
  // Writes the canary into every guard of the candidate's arena.
  Status FillGuards();
  // The reference's time times call_timeout_factor within the bounds;
  // the upper bound on a shared device.
  std::chrono::milliseconds PerCallTimeout();
  // For a timed-out call's reason: why its limit was the longest.
  std::string SharedLimitNote();
  // A ModelNew file that failed to load or whose call failed (rc).
  void DecideCompatFailure(int rc, const std::string& during);
  void DecideFromOutcome(const CallOutcome& o, const std::string& during);

  RunState& s_;
  CandidateChecks& checks_;
  bool limited_by_total_ = false;  // the last call's timeout was the total's remainder
  std::chrono::milliseconds last_call_timeout_{0};
};

}  // namespace hone
