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
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "run/eval_options.h"
#include "task/oracle_service.h"
#include "task/task.h"
#include "verify/verdict.h"

namespace hone {

class CompatPrebuilder;
class TorchExtensionBuilder;
class WarmPool;

class Evaluator {
 public:
  // `oracle`: for PyTorch-defined tasks, the oracle that loaded them (on the
  // candidate's device). It stands in for the reference: inputs, parameters
  // and expected outputs come from it (the eager and torch.compile baselines
  // are timed in sandboxes, like candidates). Not owned; it outlives the
  // evaluator. Null when no PyTorch task is evaluated. `env` carries the
  // PyTorch path (EvaluatorEnv::open_pytorch_path), checked here.
  explicit Evaluator(EvaluatorEnv env, OracleService* oracle = nullptr);
  ~Evaluator();

  Result<Verdict> Evaluate(const Task& task, const std::filesystem::path& candidate,
                           const EvalOptions& options, const ProgressFn& progress = {});
  const EvaluatorEnv& env() const { return env_; }
  OracleService* oracle() const { return oracle_; }

  // For bench and optimize: compute-sanitizer on a candidate that `v` (its
  // timed verdict) says passed, never while timing. A verification-only
  // evaluation with EvalOptions::sanitize; its findings go into `v`, and
  // memcheck errors turn `v` into a runtime_error. A candidate the tool
  // does not run (SanitizerSkipReason) gets Verdict::Sanitizer::not_run,
  // without a second evaluation when it is the one Evaluate passed last.
  Status SanitizeInto(const Task& task, const std::filesystem::path& candidate,
                      const EvalOptions& options, Verdict& v);

  // Builds the torch extensions of many compat candidates (.py) at once,
  // outside any sandbox, so that their evaluations find them built
  // (compat/compat_prebuild.h). `progress(done, total)` after each build.
  // Needs the oracle; a failure is the evaluation's to report.
  void PrebuildCompat(const std::vector<std::filesystem::path>& candidates,
                      const std::function<void(int, int)>& progress = {});

  // For `hone prepare`: builds, outside any sandbox, the files the ModelNew
  // languages offer for `backend`'s device (ModelNewLoading::warm_up: load_inline's
  // precompiled torch headers), written into `dir`, so that a first
  // candidate finds them built. One result per file; a failure costs only a
  // later candidate's time. Needs the oracle; none without it.
  struct WarmUpBuild {
    std::string language;
    bool ok = false;
    bool cached = false;  // built before, on this machine
    double seconds = 0;
    std::string error;  // !ok: why, its first lines
  };
  std::vector<WarmUpBuild> WarmUp(const std::string& backend, const std::filesystem::path& dir,
                                  const std::function<void(int, int)>& progress = {});

  // Starts sandboxes importing Python and torch now (the candidate's, and
  // when `options` time it the eager baseline's), for the next compat
  // candidate evaluated on `backend` with `options` (process/warm_pool.h), so
  // that its start overlaps the caller's own work (loading the task, or the
  // oracle's own start when it was launched without waiting). Does
  // nothing without the oracle or with HONE_WARM_SANDBOXES=0.
  void PrewarmCompat(const std::string& backend, const EvalOptions& options);
  // Starts a ModelNew candidate's extension builds now, on the prebuilder's
  // threads (CompatPrebuilder::Start), so that they overlap the caller's own
  // work (the oracle loading the problem at full size); its evaluation then
  // waits for them, and its problem's baselines are timed meanwhile when
  // they still compile. Asks the oracle for the build commands, so it waits
  // for the oracle's start. Does nothing without the oracle; a failure is
  // the evaluation's to report.
  void StartCompatBuild(const std::filesystem::path& candidate);
  // For many evaluations in a row (bench): each compat evaluation that takes
  // a warm sandbox starts warming the next one (never while timing).
  void KeepWarm(bool keep) { keep_warm_ = keep; }

 private:
  // The prebuilder for oracle_, made on first use; null without an oracle.
  Result<CompatPrebuilder*> Prebuilder();
  // A ModelNew candidate whose extensions are to compile: its prebuild, and
  // meanwhile its task's own Model evaluated for the baselines (as `hone
  // prepare` does; EvalOptions::baselines_during_build). Returns that
  // evaluation's verdict, or nothing when it did not run.
  std::optional<Verdict> PrebuildBesideBaselines(CompatPrebuilder& prebuilder, const Task& task,
                                                 const std::filesystem::path& candidate,
                                                 const EvalOptions& options,
                                                 const ProgressFn& progress);
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
  // Why compute-sanitizer would not run the candidate last evaluated, when it
  // passed (SanitizerSkipReason, known once its kernels are): SanitizeInto
  // then needs no second evaluation to say so.
  std::filesystem::path last_passed_;
  std::string last_passed_sanitizer_skip_;
};

}  // namespace hone
