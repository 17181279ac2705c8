// The verification stage: on every shape case, for every seed and value
// distribution, the candidate runs twice on a value set of the reference
// source's, in buffer slot 0, with its inputs restored and its outputs
// poisoned before each run (0xFF bytes, NaN in every float type, then a
// finite 0x5A), and each run passes the candidate checks
// (run/candidate_checks.h): no stray writes, inputs unchanged, outputs
// within tolerance, read where they lie in the arena; the first run's error
// is held to the float64 reference's bound (on the value sets
// Float64Budget gives one), and bitwise differences between the two runs
// are noted.
//
// The first failure decides the verdict and ends the stage; a Status is the
// reference's or the worker's failure. Each value set's tensors leave the
// store when its check ends. Borrows everything; not thread-safe.
#pragma once

#include <cstdint>

#include "process/stray_writes.h"
#include "run/candidate_checks.h"
#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"
#include "verify/float64_budget.h"

namespace hone {

class VerifyStage {
 public:
  VerifyStage(RunState& state, CandidateRunner& runner, CandidateChecks& checks,
              ReferenceSource& reference)
      : s_(state), runner_(runner), checks_(checks), reference_(reference) {}

  Status Run();

 private:
  Status VerifyCase(const CaseShapes& cs);
  int64_t FloatingOutputElements(const CaseShapes& cs) const;
  void NoteFloat64Budget(const CaseShapes& cs, const Float64Budget& budget);
  // `watch`: the case's stray-write watch, armed. `with64`: ask for the
  // float64 reference.
  Status VerifyOne(const CaseShapes& cs, int seed, int dist, bool with64, StrayWriteWatch& watch);
  // The two runs on `ref`; false when one failed (the verdict is decided)
  // or the worker did.
  bool RunTwice(const RefSet& ref, const std::string& where, StrayWriteWatch& watch);

  RunState& s_;
  CandidateRunner& runner_;
  CandidateChecks& checks_;
  ReferenceSource& reference_;
};

}  // namespace hone
