// Where an evaluation's expected outputs come from. A ReferenceSource turns
// (case, seed, value distribution) into a value set: inputs and the outputs
// the task's reference gives on them, kept in the worker's TrustedStore,
// never in an arena the candidate maps. It also says how the reference
// takes part in timing.
//
// Two implementations:
//  - NativeReference (run/native_reference.h): the task's reference.cpp or
//    .cu, run in a sandbox of its own and timed beside the candidate,
//    interleaved, as the baseline of the speedup;
//  - OracleReference (pytorch/oracle_reference.h): the PyTorch oracle of a .py
//    task, which draws value sets itself; the task's Model is timed apart,
//    as the eager and torch.compile baselines (pytorch/baseline_stage.h), or,
//    when the calls are host-bound, the eager Model beside the candidate.
//    It comes with the rest of the PyTorch path (PyTorchPath, below).
//
// A Status from a source is a broken task or environment, never a verdict
// on the candidate. Not thread-safe: the evaluating thread drives it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "build/build_pool.h"
#include "core/rng.h"
#include "process/sandbox_process.h"
#include "run/buffer_layout.h"

namespace hone {

class CandidateChecks;
class CandidateRunner;
class CompatPrebuilder;
class SandboxLauncher;
struct BaselineTiming;
struct RunState;

// The inputs of one value set with their expected outputs (and, when asked
// for and available, the float64 reference's).
struct RefSet {
  Ids inputs, expected, ref64;
  // The seed the oracle gave torch before the forward of `expected`; a
  // candidate's call on these inputs gets it too (wire::Request::rng_seed).
  uint64_t rng_seed = 0;
};

// The tensors of one timed repetition: its fresh inputs and, when it is
// re-checked, both sides' outputs (whichever side ran first waits for the
// other).
struct FreshRep {
  int rep = -1;
  bool recheck = false;
  // Whether its time is a sample: a PyTorch task's re-checked calls repeat a
  // pool set, which a cache could answer.
  bool sample = true;
  uint64_t rng_seed = 0;  // the pool set's (RefSet::rng_seed)
  // A timed reference has made its call of this repetition: until then the
  // repetition (its inputs) must outlive a comparison made without it.
  bool reference_ran = false;
  Ids inputs, expected, actual;
  Ids borrowed;  // ids among inputs/expected that belong to the timing pool
  // Releases what the repetition owns (not what it borrowed) and forgets it.
  void Reset(TrustedStore& store);
};

class ReferenceSource {
 public:
  virtual ~ReferenceSource() = default;

  // The task's value distributions in words, for messages ("x~uniform(-1, 1)").
  virtual std::vector<std::string> DistributionNames() const = 0;
  // Builds what the reference runs, in `pool`, before the candidate's build.
  virtual Status Build(BuildPool& pool) = 0;
  // The reference's own memory, sized for every case (after the memory plan,
  // before the candidate's arena).
  virtual Status Allocate() = 0;
  // Starts the reference (`base`: the sandbox every candidate gets) without
  // waiting; AwaitReady waits for it to load. Both on the evaluating thread.
  virtual Status Spawn(const SandboxConfig& base) = 0;
  virtual Status AwaitReady() = 0;
  // Lays out and binds the reference's buffer slots for `cs`.
  virtual Status Bind(const CaseShapes& cs) = 0;
  // The value set (seed, dist) of `cs`, computed on buffer slot `set` where
  // the reference runs in a sandbox; `with64` asks for the float64
  // reference too (empty once the reference cannot give it: a note says so).
  virtual Result<RefSet> Reference(const CaseShapes& cs, uint64_t seed, int dist, int set,
                                   bool with64) = 0;

  // Timing. The value sets warm-up calls use, with their expected outputs,
  // prepared before the timer starts.
  virtual Result<std::vector<RefSet>> WarmupSets(const CaseShapes& cs) = 0;
  // Timed repetition `fresh.rep`'s inputs, which no candidate can know in
  // advance: drawn from `seed` (itself unpredictable) or `unpredictable`.
  virtual Status DrawTimedInputs(const CaseShapes& cs, uint64_t seed, FreshRep& fresh,
                                 Rng& unpredictable) = 0;
  // Where a timed call's inputs came from, for a check's place
  // ("(fresh inputs, seed N)"), and for all timed calls, for its detail.
  virtual std::string TimedInputsWhere(uint64_t seed) const = 0;
  virtual std::string TimedInputsSummary() const = 0;
  // Whether the reference is timed beside the candidate, interleaved (the
  // side 0 of the timer). The calls below are for such a source only.
  virtual bool timed() const = 0;
  // Whether a timed reference's speedup is the median of paired ratios, and
  // its timing takes at least kPairedMinReps of them (run/timing_stage.h):
  // the eager Model timed beside host-bound calls strays now and then.
  virtual bool paired() const { return false; }
  // A timed call on buffer slot `set` with `inputs` restored, outputs
  // poisoned; `rng_seed` is the value set's (RefSet::rng_seed).
  virtual Status CallTimed(int set, const Ids& inputs, uint32_t flags, uint64_t rng_seed,
                           CallOutcome* o);
  virtual Ids CaptureOutputs(int set);
  // What its line flush covers on slot 0 of the bound case.
  virtual double FlushedBytes() const { return 0; }
};

// The PyTorch path: what a task whose reference the oracle runs
// (ReferenceSite::kOracle) brings to the stages of its evaluation, its
// reference among them. Implemented above this folder, in src/pytorch/
// (pytorch/pytorch_stages.h), and opened by the evaluator through
// EvaluatorEnv::open_pytorch_path, so that no piece of the pipeline names the
// PyTorch path's own; each stage calls its part at its step:
//  - a ModelNew candidate, which only such a task takes
//    (pytorch/compat_stages.h): Prebuild before the lint, LintScan as its
//    lint, WriteShim for its build (run/build_stage.h);
//  - the task's eager and torch.compile baselines (pytorch/baseline_stage.h):
//    LookUpBaselines before the build, BuildBaselines beside the candidate's
//    (run/build_stage.h), SpawnBaselinesIfFitBeside beside its sandbox
//    (run/start_stage.h), TimeBaselines once it is gone;
//  - the timing policy beyond the timing stage (pytorch/pytorch_timing.h):
//    SpawnSpares once the candidate has started, AwaitAllLoads before the
//    timing stage, TimeInMoreProcesses and TimeBesideTheBaseline after it.
// The verdict is decided through RunState; Status is for the worker's own
// failures. Its sandboxes go when it does, which must be before the
// candidate's arena. Not thread-safe.
class PyTorchPath {
 public:
  virtual ~PyTorchPath() = default;

  // Where the expected outputs come from: the oracle.
  virtual ReferenceSource& reference() = 0;

  // A ModelNew candidate (RunState::compat).
  virtual Status Prebuild(const std::filesystem::path& candidate) = 0;
  virtual void LintScan() = 0;
  // Needs RunState::compat_runtime; sets RunState::shim_options.
  virtual Result<std::filesystem::path> WriteShim(const std::filesystem::path& candidate) = 0;

  // The baselines: the cached ones, or the ones to time (none unless timing).
  virtual void LookUpBaselines() = 0;
  // Whether any baseline is to be timed here (its shim needs the runtime).
  virtual bool TimesBaselines() const = 0;
  // Whether every baseline asked for was in the cache (a host-bound eager
  // one may still be timed again beside the candidate).
  virtual bool BaselinesCached() const = 0;
  virtual Status BuildBaselines(BuildPool& pool) = 0;
  // Starts them now when they fit in memory beside the candidate's sandbox.
  virtual Status SpawnBaselinesIfFitBeside() = 0;
  // Once the candidate's sandbox is gone: those not cached timed and
  // cached, and all of them into the verdict as the speedup's baselines.
  virtual Status TimeBaselines() = 0;
  // The eager baseline when it was measured (here or earlier), else null.
  virtual const BaselineTiming* eager_baseline() const = 0;

  // The timing policy, from the candidate's library once it has started:
  // its extra processes start loading now when short calls are foreseen.
  virtual Status SpawnSpares(const std::filesystem::path& cand_lib) = 0;
  // Waits until every sandbox started so far has loaded.
  virtual Status AwaitAllLoads() = 0;
  // After the timing stage: short calls timed again in more processes,
  // host-bound calls beside the eager Model.
  virtual Status TimeInMoreProcesses() = 0;
  virtual Status TimeBesideTheBaseline() = 0;
};

// What the PyTorch path borrows from the evaluation that opens it.
struct PyTorchPathParts {
  RunState& state;
  SandboxLauncher& launcher;
  CandidateRunner& runner;
  CandidateChecks& checks;
  CompatPrebuilder* prebuilder;  // a ModelNew candidate's (the Evaluator's); may be null
};

}  // namespace hone
