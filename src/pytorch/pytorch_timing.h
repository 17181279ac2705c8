// A PyTorch task's timing beyond the timing stage itself (run/timing_stage.h),
// the policy the evaluator applies once the candidate has been checked:
//  - short calls (under EvalOptions::short_call_seconds): the candidate is
//    timed again in more sandbox processes and the samples pooled
//    (pytorch/timing_processes.h); when the cached eager baseline foresees
//    short calls, those processes start loading while the candidate is
//    checked (SpawnSpares), and every load is awaited before any timing;
//  - host-bound calls (a CPU candidate, or GPU calls that ran unheld): the
//    candidate is timed again beside the eager Model, call by call, both
//    calling threads pinned to one CPU, so that the host's drift cancels in
//    the ratio (BaselineStage::EagerBeside).
// The verdict is decided through RunState; Status is for the worker's own
// failures. Borrows everything; not thread-safe. Its spare sandboxes go
// when it does, which must be before the candidate's arena.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "compat/calling_thread_pin.h"
#include "pytorch/baseline_stage.h"
#include "pytorch/oracle_reference.h"
#include "run/candidate_checks.h"
#include "run/candidate_runner.h"
#include "run/reference_source.h"
#include "run/run_state.h"
#include "run/sandbox_launcher.h"

namespace hone {

class PyTorchTiming {
 public:
  PyTorchTiming(RunState& state, SandboxLauncher& launcher, CandidateRunner& runner,
                CandidateChecks& checks, ReferenceSource& reference, BaselineStage& baselines,
                OracleReference& oracle, const std::filesystem::path& candidate_library)
      : s_(state),
        launcher_(launcher),
        runner_(runner),
        checks_(checks),
        reference_(reference),
        baselines_(baselines),
        oracle_(oracle),
        cand_lib_(candidate_library) {}

  // Short calls foreseen (the cached eager baseline's are): the candidate's
  // extra timing processes start now and load while it is checked, rather
  // than after its first process is timed.
  Status SpawnSpares();
  // Waits until every sandbox started so far has loaded, the baselines'
  // and those spares: none loads while one is timed.
  Status AwaitAllLoads() {
    baselines_.Await();
    return AwaitLoads(spares_);
  }
  // Short calls of the candidate: timed again in fresh processes, the
  // samples pooled (pytorch/timing_processes.h).
  Status TimeInMoreProcesses();
  // Host-bound calls of the candidate: timed again beside the eager Model,
  // interleaved, when that baseline is timed now or was cached from
  // host-bound calls.
  Status TimeBesideTheBaseline();

 private:
  // Another process of the candidate, and how its load went once awaited.
  struct Extra {
    std::unique_ptr<SandboxProcess> sandbox;
    std::optional<CallOutcome> startup;
  };
  // Awaits the load of each process not awaited yet; judging it is the caller's.
  Status AwaitLoads(std::vector<Extra>& extras);
  // Whether an extra process's load timed out while the GPU was shared: then
  // they are dropped, noted, and the first timing stands.
  bool ALoadTimedOutBesideNeighbours(std::vector<Extra>& extras);
  std::unique_ptr<CallingThreadPin> PinBothCallingThreads(const SandboxProcess& model);
  void NoteStrayedPin(const CallingThreadPin& pin, const SandboxProcess& model);

  RunState& s_;
  SandboxLauncher& launcher_;
  CandidateRunner& runner_;
  CandidateChecks& checks_;
  ReferenceSource& reference_;
  BaselineStage& baselines_;
  OracleReference& oracle_;
  const std::filesystem::path& cand_lib_;
  std::vector<Extra> spares_;  // SpawnSpares: taken by TimeInMoreProcesses
};

}  // namespace hone
