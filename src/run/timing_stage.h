// The timing stage: the candidate and, where the reference source has a
// timed side (a native task), the reference timed on the first shape case
// under one protocol, interleaved by InterleavedTimer (measure/timer.h) so
// drift cancels in their ratio. docs/ARCHITECTURE.md (step 7) describes it.
//
// Its named steps: warm-up calls on value sets prepared with their expected
// outputs, every candidate output checked (WarmupCall); timed calls on
// inputs no candidate can know in advance (DrawFreshInputs, TimedCall), a
// random third of them re-checked against the reference's outputs on the
// same inputs (Recheck), topped up to kMinTimedRechecks after the loop with
// calls made exactly like timed ones (TopUpRechecks); the canaries around
// every buffer slot compared once, after the last call; then the times
// cross-checked against the worker's clock (CandidateChecks::
// CheckReportedTimes) and the speedup and speed of light written into the
// verdict (Conclude).
//
// A failed call or check decides the verdict and ends the stage; a Status
// is the reference's or the worker's failure. Tensors it keeps stay in the
// store, which the evaluator clears after the baselines. One TimingStage
// times one evaluation; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "measure/device_state.h"
#include "measure/timer.h"
#include "run/candidate_checks.h"
#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

// Timed calls whose outputs are re-checked, at the least.
inline constexpr int kMinTimedRechecks = 5;

// Paired repetitions, at the least, when a PyTorch task's eager Model is
// timed beside host-bound calls (TimingStage::Policy).
inline constexpr int kPairedMinReps = 20;

// The request flags of a timed call: wire::kTimed and the cache flush.
uint32_t TimedCallFlags(FlushMode flush);

// Seeded from std::random_device: its draws are unknown to any candidate
// and never repeat between evaluations.
Rng UnpredictableRng();

// How one side's timing calls ran against the hold (CUDA): a held call's
// events leave out host launch time, an unheld one's include it, so a side
// whose hold ran out is not timed like one that kept it.
struct HoldTally {
  int calls = 0, held = 0, timed_out_at = -1;
  void Count(const CallOutcome& o);
  // Empty when every call was held.
  std::string Describe(const std::string& who) const;
};

class TimingStage {
 public:
  TimingStage(RunState& state, CandidateRunner& runner, CandidateChecks& checks,
              ReferenceSource& reference);
  // Binds `cs` and times it.
  Status Run(const CaseShapes& cs);

 private:
  bool IsReference(int side) const { return side != cand_side_; }
  TimingPolicy Policy() const;
  Status Prepare();
  // Restores `in` into the side's buffer slot, poisons its outputs and calls it.
  bool Call(int side, int set, const Ids& in, uint64_t rng_seed, bool timed, CallOutcome* o);
  // A warm-up call on a prepared value set; the candidate's output is checked.
  bool WarmupCall(int side, int rep);
  // A timed call on repetition `rep`'s fresh inputs, shared by both sides.
  bool TimedCall(int side, int rep, double* seconds);
  bool DrawFreshInputs(int rep);
  // The call's sample, or NaN where it was timed only in part or repeats.
  double Sample(int side, const CallOutcome& o);
  void RecordHarnessTime(int side, const CallOutcome& o);
  bool Recheck(int side, int set, int rep);
  void TopUpRechecks(int first_rep);
  void NoteHowTimed(TimerStop stop, const InterleavedTimer& timer);
  void Conclude(const InterleavedTimer& timer);
  // How many more bytes the candidate's line flush covers than the
  // reference's (its workspace, say): with --flush lines their flushes
  // differ by that much.
  double FlushedBytesRatio() const;
  void SpeedOfLight(double median);

  RunState& s_;
  CandidateRunner& runner_;
  CandidateChecks& checks_;
  ReferenceSource& reference_;
  const CaseShapes* cs_ = nullptr;
  int sets_ = 0;
  // Side 0 is the reference, side 1 the candidate; without a timed
  // reference the candidate is side 0.
  int cand_side_ = 1;
  uint32_t flags_ = 0;
  std::vector<RefSet> warmup_;  // with their expected outputs
  std::vector<double> gaps_[2], prepares_[2], launches_;
  // CPU backend: the candidate sandbox's CPU time over each timed request
  // beyond its reported call and flush. Hidden work on the CPU must run, so
  // it shows here; the wait of a busy machine for a core does not.
  std::vector<double> cpu_beyond_;
  // The candidate's CPU time per timed request outside its reported call:
  // its flush, and any work moved before the clock (candidate_checks.h).
  std::vector<double> prepare_cpu_;
  double call_cpu_seconds_ = -1;  // the last timed call's; -1: not counted
  Status failure_;
  int rechecked_ = 0, rechecked_timed_ = 0;
  std::vector<DeviceSample> gpu_samples_;
  bool force_recheck_ = false;
  // Timed inputs and which calls are re-checked are drawn from it, so a
  // kernel that only computes when watched cannot find the pattern.
  Rng unpredictable_;
  uint64_t fresh_seed_ = 0;
  FreshRep fresh_;
  bool side_streams_noted_ = false;
  HoldTally hold_;
  int cand_calls_ = 0;
};

}  // namespace hone
