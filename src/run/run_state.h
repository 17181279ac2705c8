// The state the stages of one evaluation share (run/evaluator.cc lists the
// stages): what was asked, what earlier stages resolved (the shape cases,
// the memory plan, the compat runtime), the candidate's side (its arena,
// sandbox and buffer layout), the worker's trusted store, and the verdict
// being written.
//
// A field is here only when more than one stage reads it; each stage object
// (reference sources, candidate checks, timing...) keeps the rest private
// and takes a RunState& it does not own. Once a verdict other than passed is
// decided, decided() stays true and every later step returns at once:
// Decide keeps the first reason. The worker's own failures (its device, its
// store) are kept in env_failure and end the evaluation as a Status, never
// as a verdict on the candidate. Not thread-safe: one evaluating thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "compat/compat_candidate.h"
#include "lang/language.h"
#include "process/sandbox_process.h"
#include "run/backend.h"
#include "run/buffer_layout.h"
#include "run/eval_options.h"
#include "run/memory_plan.h"
#include "run/trusted_store.h"
#include "task/oracle_service.h"
#include "task/task.h"
#include "verify/verdict.h"

namespace hone {

// The candidate's sandbox and what the worker knows of its arena.
struct CandidateSide {
  std::unique_ptr<Arena> arena;
  size_t arena_bytes = 0;  // sized for the largest case
  std::unique_ptr<SandboxProcess> sandbox;
  std::vector<SetLayout> sets;       // per buffer slot, for the bound case
  uint64_t workspace_bytes = 0;      // of the bound case
  std::vector<std::string> kernels;  // those its source defines (CUDA launch tracking)
  std::vector<ArenaSpan> guards;     // the canaries of its arena
  // Not 0 (a zeroing write would go unseen), nor either poison byte.
  const uint8_t canary = static_cast<uint8_t>(0x11 + std::random_device{}() % 0x40);
};

struct RunState {
  using Clock = std::chrono::steady_clock;

  RunState(const EvaluatorEnv& env, const Backend& backend, const Language& language,
           OracleService* oracle, const Task& task, const EvalOptions& opt,
           const ProgressFn& progress, Verdict& v);

  const EvaluatorEnv& env;
  const Backend& backend;       // the candidate's (run/backend.h)
  const Language& language;     // the candidate's (lang/language.h)
  OracleService* const oracle;  // a PyTorch task's (Evaluator's constructor); may be null
  const Task& task;
  const EvalOptions& opt;
  Verdict& v;
  const bool compat;                 // a KernelBench ModelNew file, run through a shim (language)
  const Clock::time_point deadline;  // the evaluation's total time limit

  std::vector<CaseShapes> cases;
  std::vector<std::string> dist_names;  // per value distribution, for messages
  MemoryPlan plan;
  MemoryDemand demand;
  std::unique_ptr<TrustedStore> store;
  // The verify stage runs: its value sets, all of one size per case, reuse
  // the store's shared buffers (TrustedStore::AllocateShared).
  bool verifying = false;
  // While set (the verify stage, when plan.verify_keeps_caches), the store
  // and the oracle keep all their cached memory between value sets.
  bool keep_caches = false;
  CandidateSide cand;
  // The reference's slowest call as it reported it (a native task's): the
  // candidate's per-call limit scales with it.
  double ref_seconds_max = 0;
  // Compat candidates and PyTorch baselines: the interpreter their shims
  // embed, and what the candidate's shim was given (its prebuilt extensions).
  std::optional<CompatRuntime> compat_runtime;
  CompatShimOptions shim_options;
  // The candidate's language's additions to the compat runner (a ModelNew
  // language's, the Evaluator's to keep); null: none.
  ModelNewLoader* loader = nullptr;
  Status env_failure;  // the worker's own device or store failed
  // How the candidate's timing went, as notes: set by each timing stage
  // (a later one, in another process or beside the eager Model, replaces
  // an earlier one's) and added to the verdict's notes once timing is over.
  struct TimingNotes {
    std::vector<Note> held;       // how its calls were held, one per kind seen
    std::optional<Note> stopped;  // why the timing loop stopped, after how many calls
  } timing_notes;
  // For a timed GPU call that ran unheld (host launch time in its report):
  // quiets hone's own work on the host's cores (the warm pool's warming)
  // for the rest of the timing. Set by the evaluator; may be empty.
  std::function<void()> quiet_host;

  bool decided() const { return decided_; }
  void Decide(VerdictStatus s, std::string reason);
  void Progress(const std::string& stage) const;
  // What is timed runs on the host's cores (no hold kernel: a CPU candidate).
  bool host_timed() const { return !backend.traits().held_calls; }
  // After a timed call: an unheld GPU call makes the rest host-bound too.
  void NoteHeld(bool held) {
    if (held || host_timed()) return;
    ran_unheld_ = true;
    if (quiet_host) quiet_host();
  }
  // Whether timed calls ran on the host's clock: a CPU candidate, or GPU
  // calls that ran unheld (NoteHeld).
  bool host_bound() const { return host_timed() || ran_unheld_; }
  // The lint rules the task and the user allow.
  std::set<std::string> AllowedRules() const;
  // Whether the task or the user allows lint rule 'library' (calling one).
  bool LibraryAllowed() const;
  // False (and env_failure set) when the worker's own store broke.
  bool StoreHealthy();

 private:
  const ProgressFn& progress_;
  bool decided_ = false;
  bool ran_unheld_ = false;
};

}  // namespace hone
