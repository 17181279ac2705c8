// The trusted worker: evaluates one candidate on one task, on one of the
// backends of its environment (run/backend.h), and returns a Verdict.
//
// It owns pristine inputs and expected outputs (never mapped into a
// sandbox), runs the reference and the candidate in separate sandboxes,
// compares outputs itself, and times both under the same protocol,
// interleaved. Expected failures of the candidate are verdicts; Status is for
// a broken task (the reference fails) or a broken environment.
// Thread-compatible: one Evaluate() at a time per Evaluator.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "lang/builtin.h"
#include "lang/language.h"
#include "measure/timer.h"
#include "run/backend_registry.h"
#include "task/oracle_service.h"
#include "task/task.h"
#include "verify/verdict.h"

namespace hone {

class CompatPrebuilder;
class TorchExtensionBuilder;
class WarmPool;

enum class FlushMode { kLlc, kLines, kNone };
std::string FlushModeName(FlushMode m);
std::optional<FlushMode> ParseFlushMode(const std::string& s);

struct EvalOptions {
  bool time = true;
  TimingPolicy timing;
  FlushMode flush = FlushMode::kLlc;
  int input_sets = 3;  // inputs rotated through during timing
  // Processes a PyTorch task's candidate and baselines are each timed in
  // when their calls take under short_call_seconds (run/timing_processes.h);
  // 1: one each.
  int short_call_processes = 4;
  double short_call_seconds = 20e-6;
  std::chrono::milliseconds max_call_timeout{10000};
  std::chrono::milliseconds min_call_timeout{2000};
  double call_timeout_factor = 50;  // times the reference's duration, within the bounds
  std::chrono::milliseconds start_timeout{10000};
  std::chrono::milliseconds total_timeout{std::chrono::minutes(10)};  // the whole evaluation
  size_t memory_limit_bytes = 0;                                      // 0: DefaultMemoryLimit()
  int threads = 0;                                                    // 0: all cores
  uint64_t seed = 0;  // offsets every generated input
  bool seccomp = true, landlock = true, netns = true;
  bool profile = false;  // SandboxConfig::profile
  // Static lint before the build (verify/lint.h). `lint_allow` names rules
  // the task or the user allows (e.g. "library" where calling cuBLAS is the
  // point); the task's own [lint] allow list is added to it.
  bool lint = true;
  std::set<std::string> lint_allow;
  // The backend ("cpu", "cuda"), opened in EvaluatorEnv::backends; empty:
  // ResolveBackend decides from the candidate's language (a ModelNew
  // file's from the devices present).
  std::string backend;
  // PyTorch tasks: which baselines to time when the cache has none. The
  // torch.compile baseline compiles the model first (seconds to minutes).
  bool eager_baseline = true;
  bool compile_baseline = true;
  // Whether the user chose the baselines (--baselines, a job's config):
  // otherwise a task that times its reference only (Task::eager_baseline_only)
  // gets no torch.compile baseline.
  bool baselines_chosen = false;
  // compute-sanitizer (memcheck, racecheck, initcheck) on the smallest case
  // after verification, before timing (run/sanitize.h). memcheck errors fail
  // the verdict; the others are reported.
  bool sanitize = false;
  // Profiler counters of a passing candidate on its timed case, after
  // timing, with the judge's diagnosis (run/profile_stage.h).
  bool metrics = false;
};

struct EvaluatorEnv {
  // The backends candidates may run on, those opened (run/backend_registry.h);
  // each evaluation asks it for its own by name.
  BackendRegistry backends;
  // The languages candidates may be written in (lang/language.h): hone's
  // own unless a test registers others; each evaluation takes its
  // candidate's from the file.
  LanguageRegistry languages = BuiltInLanguages();
  std::filesystem::path scratch_root;
};

using ProgressFn = std::function<void(const std::string& stage)>;

class Evaluator {
 public:
  // `oracle`: for PyTorch-defined tasks, the oracle that loaded them (on the
  // candidate's device). It stands in for the reference: inputs, parameters
  // and expected outputs come from it (the eager and torch.compile baselines
  // are timed in sandboxes, like candidates). Not owned; it outlives the
  // evaluator. Null when no PyTorch task is evaluated.
  explicit Evaluator(EvaluatorEnv env, OracleService* oracle = nullptr);
  ~Evaluator();

  Result<Verdict> Evaluate(const Task& task, const std::filesystem::path& candidate,
                           const EvalOptions& options, const ProgressFn& progress = {});
  const EvaluatorEnv& env() const { return env_; }
  OracleService* oracle() const { return oracle_; }

  // For bench and optimize: compute-sanitizer on a candidate that `v` (its
  // timed verdict) says passed, never while timing. A verification-only
  // evaluation with EvalOptions::sanitize; its findings go into `v`, and
  // memcheck errors turn `v` into a runtime_error. A CPU or compat
  // candidate gets Verdict::Sanitizer::not_run.
  Status SanitizeInto(const Task& task, const std::filesystem::path& candidate,
                      const EvalOptions& options, Verdict& v);

  // Builds the torch extensions of many compat candidates (.py) at once,
  // outside any sandbox, so that their evaluations find them built
  // (run/compat_prebuild.h). `progress(done, total)` after each build.
  // Needs the oracle; a failure is the evaluation's to report.
  void PrebuildCompat(const std::vector<std::filesystem::path>& candidates,
                      const std::function<void(int, int)>& progress = {});

  // Starts a sandbox importing Python and torch now, for the next compat
  // candidate evaluated on `backend` with `options` (run/warm_pool.h), so
  // that its start overlaps the caller's own work (loading the task, or the
  // oracle's own start when it was launched without waiting). Does
  // nothing without the oracle or with HONE_WARM_SANDBOXES=0.
  void PrewarmCompat(const std::string& backend, const EvalOptions& options);
  // For many evaluations in a row (bench): each compat evaluation that takes
  // a warm sandbox starts warming the next one (never while timing).
  void KeepWarm(bool keep) { keep_warm_ = keep; }

 private:
  // The prebuilder for oracle_, made on first use; null without an oracle.
  Result<CompatPrebuilder*> Prebuilder();
  // A ModelNew language's loader (lang/language.h), made on first use and
  // kept; null for a language without one, or without an oracle.
  ModelNewLoader* LoaderFor(const Language& language);

  EvaluatorEnv env_;
  OracleService* oracle_;
  std::unique_ptr<TorchExtensionBuilder> torch_builder_;
  std::unique_ptr<CompatPrebuilder> prebuilder_;
  std::unique_ptr<WarmPool> warm_pool_;
  std::map<std::string, std::unique_ptr<ModelNewLoader>> loaders_;  // by language
  bool keep_warm_ = false;
  bool warm_note_given_ = false;
};

// The default memory for a candidate's own allocations: an eighth of RAM, at
// most 2 GiB. Inputs, outputs and hone's flush buffer come on top.
size_t DefaultMemoryLimit();

}  // namespace hone
