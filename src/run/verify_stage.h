// The verification stage: on every shape case, for every seed and value
// distribution, the candidate runs twice on a value set of the reference
// source's, in buffer slot 0, with its inputs restored and its outputs
// poisoned before each run (0xFF bytes, NaN in every float type, then a
// finite 0x5A), and each run passes the candidate checks
// (run/candidate_checks.h): no stray writes, inputs unchanged, outputs
// within tolerance; then bitwise differences between the two runs are noted
// and the first run's error is held to the float64 reference's bound.
//
// The first failure decides the verdict and ends the stage; a Status is the
// reference's or the worker's failure. Each value set's tensors leave the
// store when its check ends. Borrows everything; not thread-safe.
#pragma once

#include "process/stray_writes.h"
#include "run/candidate_checks.h"
#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

class VerifyStage {
 public:
  VerifyStage(RunState& state, CandidateRunner& runner, CandidateChecks& checks,
              ReferenceSource& reference)
      : s_(state), runner_(runner), checks_(checks), reference_(reference) {}

  Status Run();

 private:
  Status VerifyCase(const CaseShapes& cs);
  // `watch`: the case's stray-write watch, armed.
  Status VerifyOne(const CaseShapes& cs, int seed, int dist, StrayWriteWatch& watch);
  // The two runs on `ref`; the first one's outputs go to `first_run`.
  // False when one failed (the verdict is decided) or the worker did.
  bool RunTwice(const RefSet& ref, const std::string& where, StrayWriteWatch& watch,
                Ids* first_run);

  RunState& s_;
  CandidateRunner& runner_;
  CandidateChecks& checks_;
  ReferenceSource& reference_;
};

}  // namespace hone
