// Starting the sandboxes of one evaluation (the candidate's, a PyTorch
// task's baselines'): the settings every candidate of a backend gets under
// the evaluation's options (BaseConfig), and the start itself, from the
// evaluator's warm pool (process/warm_pool.h) when a warm compat sandbox fits the
// config, else cold.
//
// A warm sandbox that fails to warm never ran its candidate, so it is no
// verdict: AwaitStart disables the pool and starts that sandbox cold. Spawn
// and await on the evaluating thread, which outlives the sandboxes
// (SandboxProcess's rule). Borrows the pool; not thread-safe.
#pragma once

#include <chrono>
#include <memory>

#include "process/sandbox_process.h"
#include "process/warm_pool.h"
#include "run/eval_options.h"

namespace hone {

// The sandbox every candidate of `backend` gets under `opt`.
SandboxConfig BaseConfig(const EvaluatorEnv& env, const Backend& backend, const EvalOptions& opt);

class SandboxLauncher {
 public:
  // `pool` may be null (every sandbox starts cold); `refill`: another warm
  // sandbox starts warming for the next evaluation as each is taken.
  SandboxLauncher(WarmPool* pool, bool refill) : pool_(pool), refill_(refill) {}

  // From the warm pool when one fits, else a cold SandboxProcess::Spawn.
  // `*warm` (when given) says which.
  Result<std::unique_ptr<SandboxProcess>> Spawn(const SandboxConfig& config, const Arena& arena,
                                                bool* warm);
  // sp->AwaitReady, and when a warm sandbox failed to warm, the same
  // sandbox started cold (the pool is then disabled).
  CallOutcome AwaitStart(std::unique_ptr<SandboxProcess>& sp, const SandboxConfig& config,
                         const Arena& arena, std::chrono::milliseconds timeout, bool* warm);
  // Nothing of hone's (a sandbox warming) competes with a measurement:
  // warming at normal priority is waited for; with `host_bound` (what is
  // timed runs on the host's cores: a CPU candidate), warming under
  // SCHED_IDLE is paused too. PauseWarming does the latter alone, for GPU
  // calls found to run unheld. Paused warming goes on at ResumeWarming or
  // the next Spawn.
  void Settle(bool host_bound);
  void PauseWarming();
  void ResumeWarming();

 private:
  WarmPool* pool_;
  bool refill_;
};

}  // namespace hone
