// The reference of a PyTorch task: the oracle (task/oracle_service.h) that
// loaded the task's Model draws each value set with get_inputs() and the
// model's parameters, and runs the Model for the expected outputs (and in
// float64, where the model allows). On a GPU whose store can share memory
// the oracle writes a set straight into store tensors, so it never crosses
// the host; otherwise it comes through the oracle's files.
//
// There is no reference sandbox: timed calls draw from a timing pool of value
// sets made once per evaluation (before the timer starts, so the oracle's
// work never falls in it), scaled by fresh factors where the task allows,
// and the Model is timed afterwards as the eager and torch.compile baselines
// (pytorch/baseline_stage.h), which use the same pool. When the candidate's calls
// are host-bound, the evaluator times it again with the eager Model's
// sandbox beside it (TimeBeside): the reference is then timed, interleaved,
// on the same pool sets, while the oracle's outputs stay the expected ones.
//
// Failures of the oracle are Status (a broken task or environment). Borrows
// the oracle (EvaluatorEnv::oracle); not thread-safe.
#pragma once

#include <memory>

#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

// A float64 forward slower than this (seconds, with its copies out) is made
// for the value sets checked so far and no more in this evaluation: the
// precision check it serves looks for a candidate that computes in lower
// precision throughout, which one value set shows, while a float64 3-D
// transposed convolution (no fast library path) costs seconds a set.
inline constexpr double kSlowFloat64Seconds = 1.0;

// Fresh siblings one timing may ask the oracle for (OracleReference::
// PoolInputs), a fifth of its re-checks: each costs the oracle a forward,
// outside the timer. A cap a candidate could count past would tell it when
// skipping is safe, so it is high enough to last a long timing (about 500
// repetitions).
inline constexpr int kFreshSiblings = 32;
inline constexpr double kFreshSiblingShare = 0.2;

class OracleReference : public ReferenceSource {
 public:
  // Checks that the oracle is there and loaded the task on the candidate's
  // backend; names the shapes it chose in the verdict.
  static Result<std::unique_ptr<OracleReference>> Open(RunState& state);

  std::vector<std::string> DistributionNames() const override;
  Status Build(BuildPool&) override { return Status::Ok(); }
  Status Allocate() override { return Status::Ok(); }
  Status Spawn(const SandboxConfig&) override { return Status::Ok(); }
  Status AwaitReady() override { return Status::Ok(); }
  Status Bind(const CaseShapes&) override { return Status::Ok(); }
  Result<RefSet> Reference(const CaseShapes& cs, uint64_t seed, int dist, int set,
                           bool with64) override;

  // The timing pool, made now.
  Result<std::vector<RefSet>> WarmupSets(const CaseShapes& cs) override;
  // A pool set (PoolInputs); re-checked ones are not samples.
  Status DrawTimedInputs(const CaseShapes& cs, uint64_t seed, FreshRep& fresh,
                         Rng& unpredictable) override;
  std::string TimedInputsWhere(uint64_t seed) const override;
  std::string TimedInputsSummary() const override;
  // Timed beside the candidate only while TimeBeside holds a sandbox.
  bool timed() const override { return beside_ != nullptr; }
  bool paired() const override { return true; }
  Status CallTimed(int set, const Ids& inputs, uint32_t flags, uint64_t rng_seed,
                   CallOutcome* o) override;
  Ids CaptureOutputs(int set) override;

  // Host-bound calls: the task's eager Model in `sandbox`, its buffers in
  // `arena` laid out and bound like the candidate's (RunState::cand.sets),
  // is timed beside the candidate, interleaved, until StopTimingBeside.
  // Neither is owned (pytorch/baseline_stage.h keeps them).
  void TimeBeside(SandboxProcess* sandbox, Arena* arena);
  void StopTimingBeside();
  // Why the Model failed while timed beside the candidate; empty if it did not.
  const std::string& beside_failure() const { return beside_failure_; }

  // The timing pool's value sets, resident in the store while timing (the
  // baselines use them too).
  const std::vector<RefSet>& pool() const { return pool_; }
  // A timed repetition's inputs: a pool set, its forward arguments scaled by
  // a fresh factor unless it is re-checked.
  //
  // Where the task allows scaling, an unchecked call's inputs are a pool set
  // times a factor, while a re-checked call's are a pool set as made: a
  // candidate that remembered the sets it saw could tell the two apart (a
  // multiple of a set seen before is unchecked) and skip the work of every
  // unchecked, timed call. So every other pool set is a sibling: the set
  // before it, multiplied by a factor drawn like an unchecked call's, with
  // the oracle's outputs for exactly those values. Warm-up calls show only
  // the sets siblings are made from; a re-check draws any pool set, so a
  // sibling's first showing, at a moment no candidate can know, is a
  // multiple of a set it saw that it cannot tell from an unchecked call.
  // A candidate that waits until it has seen every sibling could still
  // learn the pool; so, where memory has room for one more value set, a
  // re-check now and then (kFreshSiblingShare of them, at most
  // kFreshSiblings per timing) gets a fresh sibling instead, made by the
  // oracle on the spot with a fresh factor and shown once: exactly what an
  // unchecked call looks like, at moments no candidate can know.
  Status PoolInputs(FreshRep& fresh, Rng& unpredictable);

 private:
  explicit OracleReference(RunState& state) : s_(state) {}
  // One value set: (seed, dist) drawn by the oracle, its floating forward
  // arguments multiplied by `scale`.
  Result<RefSet> Draw(const CaseShapes& cs, uint64_t seed, int dist, bool with64, double scale);
  Status FetchPool(const CaseShapes& cs);
  // Whether this re-check gets a fresh sibling: drawn, and only while the
  // memory plan has room for one more value set and the oracle's draw.
  bool WantsFreshSibling(Rng& unpredictable) const;
  // A fresh sibling of a random even pool set into `fresh` (owned by it).
  Status FreshSibling(FreshRep& fresh, Rng& unpredictable);
  // Whether pool set `k` is a sibling (PoolInputs).
  bool IsSibling(size_t k) const { return siblings_ && k % 2 == 1; }
  // Store tensors the oracle writes one value set into; false (nothing
  // allocated) when the store cannot share memory: the set then comes
  // through the oracle's files.
  bool AllocateShared(const CaseShapes& cs, bool with64, RefSet* r, OracleTargets* t);
  Result<Ids> UploadAll(const std::vector<HostTensor>& tensors);
  // Says once that later value sets get no float64 reference, and why.
  void NoteFloat64Cut();

  RunState& s_;
  std::vector<RefSet> pool_;
  uint64_t pool_seed_ = 0;
  bool siblings_ = false;                  // odd pool sets are siblings (PoolInputs)
  const CaseShapes* pool_case_ = nullptr;  // WarmupSets' case, for fresh siblings
  int fresh_siblings_ = 0;                 // made in this timing (PoolInputs)
  bool ref64_supported_ = true;
  int ref64_sets_ = 0;             // value sets given a float64 reference
  double ref64_slow_seconds_ = 0;  // a float64 forward over kSlowFloat64Seconds
  bool ref64_cut_noted_ = false;
  SandboxProcess* beside_ = nullptr;  // TimeBeside's, not owned
  Arena* beside_arena_ = nullptr;
  std::string beside_failure_;
};

}  // namespace hone
