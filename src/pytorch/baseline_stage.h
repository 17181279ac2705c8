// The eager and torch.compile baselines of a PyTorch task: the task's own
// Model run through the compat runner in sandboxes of their own and timed
// under the candidate's protocol (so a problem timed against itself gives
// 1.00), or read from the disk cache (compat/baseline_cache.h), which every
// later evaluation of the task on this device and torch then reads.
//
// Its steps follow the evaluation's: LookUp before the build (a cached pair
// leaves nothing to time, unless its eager baseline was host-bound on a
// GPU: that Model is loaded to be timed again beside a host-bound
// candidate); Build their shims beside the candidate's; SpawnIfFitBeside,
// so they load while the candidate is checked when memory allows; Await
// them before the candidate is timed (loading runs the model once, and
// compiles it for torch.compile), so loading never competes with a
// measurement; TimeAll once the candidate is gone; Apply their times to the
// verdict as the speedup's baselines.
//
// A baseline that fails to load or run is no verdict on the candidate: the
// verdict says why it is missing. Status is for the worker's own failures.
// Borrows the state, the launcher and the oracle reference (whose timing
// pool its calls draw from); not thread-safe.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "build/build_pool.h"
#include "compat/baseline_cache.h"
#include "measure/timer.h"
#include "pytorch/oracle_reference.h"
#include "run/run_state.h"
#include "run/sandbox_launcher.h"
#include "run/timing_stage.h"

namespace hone {

// Whether a cached eager baseline is timed again beside a host-bound
// candidate: on a GPU, when its own calls ran unheld. Its samples are then
// the host's launch rate at the time it was cached, which drifts by a third
// within minutes (docs/PERFORMANCE.md, "Host-bound level 3"), so only a
// timing beside the candidate compares; a held baseline's time is the GPU's
// and keeps.
bool RetimedBesideHostBound(const BaselineTiming& cached, const BackendTraits& backend);

class BaselineStage {
 public:
  BaselineStage(RunState& state, SandboxLauncher& launcher, OracleReference& oracle)
      : s_(state), launcher_(launcher), oracle_(oracle) {}

  // The cached baselines, or the ones to time (none unless timing).
  void LookUp();
  // Whether any baseline is to be timed here (its shim needs the runtime).
  bool has_runs() const { return !runs_.empty(); }
  // Whether nothing is to be timed but a cached eager baseline again beside
  // a host-bound candidate (RetimedBesideHostBound).
  bool all_cached() const;
  Status Build(BuildPool& pool);
  // Starts them now when they fit in memory beside the candidate's sandbox.
  Status SpawnIfFitBeside();
  // When the candidate's calls are short and it is timed in `count` more
  // processes (pytorch/timing_processes.h), each baseline's own extra processes
  // start loading beside those, if memory allows: a baseline of short calls
  // then needs no second round of loading after the candidate. A spare that
  // its baseline turns out not to need (its calls are long) goes unused.
  Status SpawnSpares(int count);
  // Waits until every baseline sandbox, spares included, has loaded.
  void Await();
  // Host-bound calls: the eager Model's sandbox, loaded, bound to the
  // candidate's slots and its state loaded, for the candidate's timing stage
  // to time beside the candidate (OracleReference::TimeBeside). Null when
  // the eager baseline is cached (and was held) or not asked for, does not
  // fit in memory beside the candidate, or failed to load (TimeAll then
  // says why).
  struct Beside {
    SandboxProcess* sandbox;
    Arena* arena;
  };
  std::optional<Beside> EagerBeside();
  // The eager Model's timing from that interleaved stage (its reference
  // side): TimeAll does not time it again, and caches it.
  void TimedBeside(const TimingResult& eager);
  // That stage failed on the Model's side: its sandbox goes, and TimeAll
  // times it apart in a fresh one, as when nothing is host-bound.
  void NotTimedBeside();
  // Times the baselines not cached, one at a time, and caches them. The
  // candidate's arena goes first: a full-size problem may only fit one set
  // of sandbox buffers at a time.
  Status TimeAll();
  // The baselines' times, speedups and how they were timed, into the verdict.
  void Apply();
  // The eager baseline when it was measured (here or earlier), else null.
  const BaselineTiming* eager() const;

 private:
  struct BaselineRun {
    CompatMode mode = CompatMode::kEager;
    std::filesystem::path library;  // its shim, built
    std::unique_ptr<Arena> arena;
    std::unique_ptr<SandboxProcess> sandbox;
    bool ready = false;
    // A cached eager baseline's Model, loaded only to be timed again beside
    // a host-bound candidate (RetimedBesideHostBound); else not timed.
    bool beside_only = false;
    BaselineTiming timing;            // the result, or why there is none
    std::vector<BaselineRun> spares;  // SpawnSpares: loaded, not yet timed
  };
  // One baseline's timing loop, as it goes.
  struct Measuring {
    Rng unpredictable = UnpredictableRng();
    FreshRep fresh;
    std::string failure;
    std::vector<double> gaps, launches;
    HoldTally hold;
  };
  // Device memory a baseline process takes: its arena and its own
  // (MemoryDemand::ProcessBytes).
  int64_t ProcessBytes() const;
  // The eager baseline's run, if it is timed here.
  BaselineRun* EagerRun();
  bool FitBeside() const;
  Status Spawn(BaselineRun& b);
  Result<SandboxConfig> Config(const BaselineRun& b) const;
  void AwaitOne(BaselineRun& b);
  void Time(BaselineRun& b);
  // Times a baseline of short calls again in more processes and pools them.
  void TimeInMoreProcesses(BaselineRun& b);
  // Binds its slots and, for a model with state, loads it in one unheld
  // call; false (and why) if either fails.
  bool BindAndLoadState(BaselineRun& b);
  bool Sample(BaselineRun& b, Measuring& m, int rep, bool is_timed, double* seconds);
  void Conclude(BaselineRun& b, const InterleavedTimer& timer, const Measuring& m);
  void Store(const Baselines& measured);

  RunState& s_;
  SandboxLauncher& launcher_;
  OracleReference& oracle_;
  std::optional<Baselines> baselines_;  // cached, or timed by this evaluation
  BaselineKey key_;
  std::vector<BaselineRun> runs_;
};

}  // namespace hone
