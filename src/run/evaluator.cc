#include "run/evaluator.h"

#include <fmt/format.h>

#include <thread>

#include "compat/compat_prebuild.h"
#include "compat/compat_sandbox.h"
#include "core/fs.h"
#include "measure/speedup.h"
#include "process/warm_pool.h"
#include "run/build_stage.h"
#include "run/candidate_checks.h"
#include "run/candidate_runner.h"
#include "run/native_reference.h"
#include "run/profile_stage.h"
#include "run/reference_source.h"
#include "run/run_state.h"
#include "run/sandbox_launcher.h"
#include "run/sanitize_stage.h"
#include "run/start_stage.h"
#include "run/timing_stage.h"
#include "run/verify_stage.h"
#include "task/reference_kind.h"
#include "verify/note_words.h"

namespace hone {
namespace {

using Clock = std::chrono::steady_clock;

// Wall time per stage, so a slow evaluation says where its time went.
class StageClock {
 public:
  explicit StageClock(Verdict& v) : v_(v), start_(Clock::now()) {}
  void Done(const char* name) {
    auto now = Clock::now();
    v_.stage_seconds.emplace_back(name, std::chrono::duration<double>(now - start_).count());
    start_ = now;
  }

 private:
  Verdict& v_;
  Clock::time_point start_;
};

// One evaluation, as the list of its stages over the pieces they share
// (run/run_state.h). Once a verdict other than passed is decided, the
// stages after it are skipped.
class Run {
 public:
  Run(const EvaluatorEnv& env, const Backend& backend, const Language& language,
      OracleService* oracle, const Task& task, const EvalOptions& opt, const ProgressFn& progress,
      Verdict& v, CompatPrebuilder* prebuilder, ModelNewLoader* loader, WarmPool* pool,
      bool refill_warm)
      : s_(env, backend, language, oracle, task, opt, progress, v),
        launcher_(pool, refill_warm),
        prebuilder_(prebuilder) {
    s_.quiet_host = [this] { launcher_.PauseWarming(); };
    s_.loader = loader;
  }
  // Each sandbox exits before the memory it maps is freed; the PyTorch
  // path's (its spares, its baselines) first, then the store, the
  // candidate's sandbox before the reference's.
  ~Run() {
    pytorch_.reset();
    s_.store.reset();
    s_.cand.sandbox.reset();
    native_.reset();
  }

  Status Execute(const std::filesystem::path& candidate);
  // Why compute-sanitizer would not run this candidate, or "" (after
  // Execute: a ModelNew file's kernels are known once it is scanned).
  std::string SanitizerSkip() const {
    return SanitizerSkipReason(s_.backend.traits(), s_.language, s_.compat, s_.cand.kernels);
  }

 private:
  Status ExecuteSteps(const std::filesystem::path& candidate);
  // After the candidate has been checked: timing, the no-work-after-return
  // check, and a PyTorch task's baselines.
  Status TimeAndConclude(StageClock& clock);
  // The reference source for the task: the oracle with the rest of the
  // PyTorch path (a PyTorch task) or the task's reference in a sandbox.
  Status OpenReference(const std::filesystem::path& candidate);
  // The candidate is gone before the baselines are timed on the same
  // device: a thread or process it left behind must not slow them (they are
  // cached for every later candidate).
  Status TimeBaselines();

  RunState s_;
  CandidateChecks checks_{s_};
  CandidateRunner runner_{s_, checks_};
  SandboxLauncher launcher_;
  CompatPrebuilder* prebuilder_;             // a compat candidate's; may be null
  std::unique_ptr<ReferenceSource> native_;  // a native task's reference
  std::unique_ptr<PyTorchPath> pytorch_;     // a PyTorch task's, with its reference
  ReferenceSource* reference_ = nullptr;     // one of theirs
  std::filesystem::path cand_lib_;           // the candidate, built
};

Status Run::Execute(const std::filesystem::path& candidate) {
  Status st = ExecuteSteps(candidate);
  if (st.ok() && !s_.env_failure.ok()) st = s_.env_failure;
  if (s_.cand.sandbox) {
    s_.v.sandbox.output_head = s_.cand.sandbox->log();
    s_.v.sandbox.output_bytes = s_.cand.sandbox->log_bytes();
  }
  return st;
}

Status Run::ExecuteSteps(const std::filesystem::path& candidate) {
  StageClock clock(s_.v);
  HONE_RETURN_IF_ERROR(OpenReference(candidate));
  if (pytorch_) pytorch_->LookUpBaselines();
  if (s_.opt.baselines_only && pytorch_ && pytorch_->BaselinesCached()) {
    s_.v.reason = "the baselines are cached: nothing to time";
    return Status::Ok();
  }
  if (s_.compat) {
    HONE_RETURN_IF_ERROR(pytorch_->Prebuild(candidate));
    clock.Done("prebuild");
    if (s_.decided()) return Status::Ok();
  }
  BuildStage build(s_, *reference_, pytorch_.get());
  HONE_RETURN_IF_ERROR(build.Lint(candidate));
  clock.Done("lint");
  if (s_.decided()) return Status::Ok();
  HONE_RETURN_IF_ERROR(build.Build(candidate, &cand_lib_));
  clock.Done("build");
  if (s_.decided()) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(s_.cases, ResolveCases(s_.task, s_.backend.traits().tasks_as));
  s_.dist_names = reference_->DistributionNames();
  HONE_RETURN_IF_ERROR(
      StartStage(s_, launcher_, runner_, *reference_, pytorch_.get()).Run(cand_lib_));
  clock.Done("start");
  if (s_.decided()) return Status::Ok();
  if (pytorch_) HONE_RETURN_IF_ERROR(pytorch_->SpawnSpares(cand_lib_));
  // The task's own Model evaluated for its baselines alone (beside a
  // candidate's compile) has nothing to verify: it is the reference. Its
  // timing still runs, which makes the timing pool the baselines draw from.
  if (!s_.opt.baselines_only) {
    HONE_RETURN_IF_ERROR(VerifyStage(s_, runner_, checks_, *reference_).Run());
    if (s_.decided()) return Status::Ok();
    clock.Done("verify");
  }
  if (s_.opt.sanitize) {
    HONE_RETURN_IF_ERROR(SanitizeStage(s_, runner_, *reference_).Run(cand_lib_));
    clock.Done("sanitize");
    if (s_.decided()) return Status::Ok();
  }
  HONE_RETURN_IF_ERROR(TimeAndConclude(clock));
  if (!s_.decided()) {
    s_.v.status = VerdictStatus::kPassed;
    s_.v.reason = "correct on " + std::to_string(s_.cases.size()) + " shape case(s) x " +
                  std::to_string(s_.task.seeds) + " seeds x " +
                  std::to_string(s_.task.num_distributions) + " value distributions";
  }
  return Status::Ok();
}

Status Run::TimeAndConclude(StageClock& clock) {
  // The timing pool stays in the store for the baselines, then goes.
  ClearStoreOnExit clear{*s_.store};
  // Warming paused for host-bound timing (SandboxLauncher::Settle) goes on
  // when this ends.
  struct ResumeWarmingOnExit {
    SandboxLauncher& launcher;
    ~ResumeWarmingOnExit() { launcher.ResumeWarming(); }
  } resume{launcher_};
  if (s_.opt.time) {
    if (pytorch_) HONE_RETURN_IF_ERROR(pytorch_->AwaitAllLoads());
    launcher_.Settle(s_.host_timed());
    HONE_RETURN_IF_ERROR(TimingStage(s_, runner_, checks_, *reference_).Run(s_.cases.front()));
    if (pytorch_) {
      HONE_RETURN_IF_ERROR(pytorch_->TimeInMoreProcesses());
      HONE_RETURN_IF_ERROR(pytorch_->TimeBesideTheBaseline());
    }
    for (Note& held : s_.timing_notes.held) s_.v.AddNote(std::move(held));
    if (s_.timing_notes.stopped) s_.v.AddNote(std::move(*s_.timing_notes.stopped));
    s_.timing_notes = {};
    clock.Done("time");
  }
  if (const SharingWatch& sharing = checks_.sharing(); sharing.shared()) {
    s_.v.timing.shared_with = sharing.seen().neighbours.others;
    s_.v.AddNote(notes::SharedWhileTimed(sharing.seen().Describe()));
  }
  // Idle CPU time is counted between all calls; the check (with its quiet
  // pause) runs once, after the last call.
  if (!s_.decided()) checks_.CheckNoWorkAfterReturn();
  if (!s_.decided() && s_.opt.metrics && s_.v.timing.candidate_time) {
    HONE_RETURN_IF_ERROR(ProfileStage(s_, runner_, *reference_).Run(cand_lib_));
    clock.Done("profile");
  }
  if (!s_.decided() && pytorch_ && s_.v.timing.candidate_time) {
    HONE_RETURN_IF_ERROR(TimeBaselines());
    clock.Done("baselines");
  }
  return Status::Ok();
}

Status Run::TimeBaselines() {
  s_.v.sandbox.output_head = s_.cand.sandbox->log();
  s_.v.sandbox.output_bytes = s_.cand.sandbox->log_bytes();
  s_.cand.sandbox.reset();
  HONE_RETURN_IF_ERROR(pytorch_->TimeBaselines());
  checks_.CheckDeferredCallTime(pytorch_->eager_baseline());
  return Status::Ok();
}

Status Run::OpenReference(const std::filesystem::path& candidate) {
  const ReferenceKind& kind = KindOf(s_.task);
  // A ModelNew candidate runs through the PyTorch path, which a task of the
  // oracle's opens.
  if (s_.compat && (!kind.TakesModelNew() || kind.site() != ReferenceSite::kOracle))
    return Status::Invalid(candidate.string() +
                           ": a ModelNew (.py) candidate needs a PyTorch task (.py), not " +
                           s_.task.dir.string());
  switch (kind.site()) {
    case ReferenceSite::kSandbox:
      native_ = std::make_unique<NativeReference>(s_);
      reference_ = native_.get();
      return Status::Ok();
    case ReferenceSite::kOracle: {
      HONE_ASSIGN_OR_RETURN(
          pytorch_, s_.env.open_pytorch_path({s_, launcher_, runner_, checks_, prebuilder_}));
      reference_ = &pytorch_->reference();
      return Status::Ok();
    }
  }
  HONE_CHECK(false, "a reference site the evaluator does not open: " + kind.name());
  return Status::Ok();
}

std::vector<Check> SanitizerChecks(const Verdict& v) {
  std::vector<Check> out;
  for (const auto& c : v.checks)
    if (c.kind() == CheckKind::kSanitizer) out.push_back(c);
  return out;
}

// Whether the baselines of `task` are timed while the candidate's extensions
// compile (EvalOptions::baselines_during_build).
bool BaselinesDuringBuild(const Backend& backend, const Task& task, const EvalOptions& o) {
  if (!o.time || !o.eager_baseline || o.baselines_only) return false;
  if (KindOf(task).site() != ReferenceSite::kOracle) return false;
  switch (o.baselines_during_build) {
    case EvalOptions::BaselinesDuringBuild::kNever:
      return false;
    case EvalOptions::BaselinesDuringBuild::kAlways:
      return true;
    case EvalOptions::BaselinesDuringBuild::kAuto:
      return backend.traits().held_calls;
  }
  return false;
}

// What the evaluation of the task's Model beside the build did, for the
// candidate's verdict: nothing to say when the baselines were cached.
void NoteBaselinesBesideBuild(const Verdict& early, Verdict& v) {
  double timed = -1;
  for (const auto& [stage, seconds] : early.stage_seconds)
    if (stage == "baselines") timed = seconds;
  if (timed < 0) return;
  // Why they were not kept, from the note that said so (BaselineStage::
  // Store); none when they were cached.
  std::optional<std::string> not_cached;
  for (const Note& n : early.notes)
    if (auto why = notes::BaselinesNotCachedReason(n)) not_cached = std::move(why);
  v.AddNote(notes::BaselinesBesideBuild(timed, not_cached));
}

// Whether the speedup can be read as one (measure/speedup.h).
void ResolveVerdictSpeedup(Verdict& v, double target_rse) {
  if (!v.timing.candidate_time || !v.timing.reference_time || v.timing.speedup <= 0) return;
  SpeedupInterval s = v.timing.speedup_pairs.empty()
                          ? ResolveSpeedup(v.timing.reference_time->summary,
                                           v.timing.candidate_time->summary, target_rse)
                          : ResolvePairedSpeedup(Summarize(v.timing.speedup_pairs), target_rse);
  v.timing.speedup_low = s.low;
  v.timing.speedup_high = s.high;
  v.timing.speedup_unresolved = s.unresolved;
}

}  // namespace

Evaluator::Evaluator(EvaluatorEnv env, OracleService* oracle)
    : env_(std::move(env)),
      oracle_(oracle),
      warm_pool_(std::make_unique<WarmPool>(WarmSandboxesEnabled())) {
  HONE_CHECK(env_.open_pytorch_path != nullptr,
             "an evaluator needs the entry point's PyTorch path (EvaluatorEnv::open_pytorch_path)");
}
Evaluator::~Evaluator() = default;

Result<CompatPrebuilder*> Evaluator::Prebuilder() {
  if (prebuilder_) return prebuilder_.get();
  if (!oracle_) return Status::Internal("compat candidates need the oracle");
  HONE_ASSIGN_OR_RETURN(std::filesystem::path cache, CacheDir());
  torch_builder_ = std::make_unique<TorchExtensionBuilder>(cache / "torch-extensions");
  prebuilder_ = std::make_unique<CompatPrebuilder>(*oracle_, *torch_builder_,
                                                   env_.scratch_root / "extensions",
                                                   env_.languages.KernelDecorators());
  return prebuilder_.get();
}

ModelNewLoader* Evaluator::LoaderFor(const Language& language) {
  if (!language.loading.make_loader || !oracle_) return nullptr;
  auto it = loaders_.find(language.name);
  if (it != loaders_.end()) return it->second.get();
  LoaderEnv env;
  auto cache = CacheDir();
  if (!cache.ok()) return nullptr;
  env.cache = *cache;
  if (geteuid() == 0)
    if (auto root = CompatScratchRoot(); root.ok()) env.readable = *root;
  env.python = oracle_->hello().value("executable", "");
  env.python_dir = oracle_->python_dir();
  std::unique_ptr<ModelNewLoader>& loader = loaders_[language.name];
  loader = language.loading.make_loader(env);
  return loader.get();
}

void Evaluator::PrewarmCompat(const std::string& backend, const EvalOptions& options) {
  if (!oracle_ || !warm_pool_->enabled()) return;
  const Backend* b = env_.backends.Find(backend);
  if (!b) return;  // the evaluation says it is not here
  // The hint, not the hello: the sandbox imports torch while the oracle
  // still does. A hint for another interpreter than the oracle's makes a
  // sandbox no candidate takes (WarmKey), never a wrong one.
  auto runtime = CompatRuntimeFromHello(oracle_->runtime_hint(), oracle_->python_dir());
  if (!runtime.ok()) return;  // the evaluation says why compat cannot run
  SandboxConfig config = BaseConfig(env_, *b, options);
  // Untimed, the candidate's is the only compat sandbox: a second, for the
  // eager baseline, would import torch (seconds of CPU) for nothing.
  if (AddCompat(config, *runtime).ok()) warm_pool_->Prepare(config, options.time ? 0 : 1);
}

void Evaluator::StartCompatBuild(const std::filesystem::path& candidate) {
  if (!oracle_) return;
  if (auto p = Prebuilder(); p.ok()) (*p)->Start(candidate);
}

void Evaluator::PrebuildCompat(const std::vector<std::filesystem::path>& candidates,
                               const std::function<void(int, int)>& progress) {
  if (candidates.empty() || !oracle_) return;
  auto p = Prebuilder();
  if (p.ok()) (*p)->PrebuildAll(candidates, progress);
}

std::vector<Evaluator::WarmUpBuild> Evaluator::WarmUp(
    const std::string& backend, const std::filesystem::path& dir,
    const std::function<void(int, int)>& progress) {
  std::vector<WarmUpBuild> out;
  const Backend* b = env_.backends.Find(backend);
  if (!b || !oracle_) return out;
  const std::string& device = b->traits().tasks_as;
  std::vector<std::filesystem::path> files;
  for (const Language& l : env_.languages.all()) {
    if (!l.loading.warm_up || !l.run.RunsOn(device)) continue;
    int n = 0;
    for (const std::string& text : l.loading.warm_up(device)) {
      std::filesystem::path file =
          dir / fmt::format("warm_up_{}_{}{}", l.name, n++, l.source.extension());
      WarmUpBuild& w = out.emplace_back();
      w.language = l.name;
      if (Status written = WriteFileAtomic(file, text); !written.ok())
        w.error = written.message();
      else
        files.push_back(file);
    }
  }
  PrebuildCompat(files, progress);
  // What the warm-up builds started for later candidates (torch's
  // precompiled header) is what `hone prepare` is for: it is waited for.
  if (torch_builder_) {
    torch_builder_->StartHeaderBuilds();
    torch_builder_->WaitForHeaders(std::chrono::minutes(10));
  }
  auto prebuilder = Prebuilder();
  size_t f = 0;
  for (WarmUpBuild& w : out) {
    if (!w.error.empty()) continue;
    // A lookup: PrebuildCompat built each file and remembers it.
    auto built = prebuilder.ok() ? (*prebuilder)->Prebuild(files[f++])
                                 : Result<CompatPrebuild>(prebuilder.status());
    if (!built.ok()) {
      w.error = built.status().message();
      continue;
    }
    w.ok = !built->extensions.empty();
    w.cached = built->all_cached();
    w.seconds = built->seconds;
    for (const PrebuiltExtension& e : built->extensions)
      if (!e.ok) {
        w.ok = false;
        w.error = e.log.substr(0, 300);
      }
    if (built->extensions.empty()) w.error = "no extension was found to build";
  }
  return out;
}

Status Evaluator::SanitizeInto(const Task& task, const std::filesystem::path& candidate,
                               const EvalOptions& options, Verdict& v) {
  if (candidate == last_passed_ && !last_passed_sanitizer_skip_.empty()) {
    v.sanitizer.emplace().not_run = last_passed_sanitizer_skip_;
    return Status::Ok();
  }
  EvalOptions o = options;
  o.time = false;
  o.sanitize = true;
  HONE_ASSIGN_OR_RETURN(Verdict checked, Evaluate(task, candidate, o));
  v.sanitizer = checked.sanitizer;
  if (!v.sanitizer) {
    // Verification failed this time: say so rather than nothing.
    v.sanitizer.emplace().not_run = "the verification before it ended " +
                                    std::string(StatusName(checked.status)) + ": " +
                                    checked.reason.substr(0, 300);
    return Status::Ok();
  }
  for (const auto& c : SanitizerChecks(checked)) v.checks.push_back(c);
  for (const Note& n : checked.notes)
    if (n.kind == NoteKind::kSanitizer) v.notes.push_back(n);
  if (checked.status == VerdictStatus::kRuntimeError && v.sanitizer->errors() > 0) {
    v.status = VerdictStatus::kRuntimeError;
    v.reason = checked.reason;
  }
  return Status::Ok();
}

Result<Verdict> Evaluator::Evaluate(const Task& task, const std::filesystem::path& candidate,
                                    const EvalOptions& options, const ProgressFn& progress) {
  auto start = Clock::now();
  Verdict v;
  v.task = task.name;
  v.candidate = candidate.string();
  HONE_ASSIGN_OR_RETURN(const Language* language, env_.languages.ForFile(candidate));
  std::string name = options.backend;
  if (name.empty()) {
    HONE_ASSIGN_OR_RETURN(name, ResolveBackend(env_.backends, *language, candidate));
  }
  HONE_ASSIGN_OR_RETURN(const Backend* backend, env_.backends.Get(name));
  v.machine = backend->machine();
  CompatPrebuilder* prebuilder = nullptr;
  if (language->run.modelnew() && oracle_) {
    HONE_ASSIGN_OR_RETURN(prebuilder, Prebuilder());
  }
  std::optional<Verdict> early;
  double early_seconds = 0;
  if (prebuilder && BaselinesDuringBuild(*backend, task, options)) {
    auto early_start = Clock::now();
    early = PrebuildBesideBaselines(*prebuilder, task, candidate, options, progress);
    early_seconds = std::chrono::duration<double>(Clock::now() - early_start).count();
  }
  // A busy GPU decided nothing: measured again, after a pause that grows.
  std::vector<std::string> busy;
  std::string sanitizer_skip;
  for (int attempt = 0;; ++attempt) {
    // The warm sandboxes wait for the candidate, not for its baselines'
    // evaluation beside its build (which starts its own, unseen).
    Run run(env_, *backend, *language, oracle_, task, options, progress, v, prebuilder,
            language->run.modelnew() ? LoaderFor(*language) : nullptr,
            options.baselines_only ? nullptr : warm_pool_.get(), keep_warm_);
    HONE_RETURN_IF_ERROR(run.Execute(candidate));
    sanitizer_skip = run.SanitizerSkip();
    if (v.status != VerdictStatus::kBusy || attempt >= options.busy_retries) break;
    busy.push_back(v.reason);
    if (progress) progress("the GPU is busy: evaluating again");
    std::this_thread::sleep_for(options.busy_pause * (1 << attempt));
    v = Verdict{};
    v.task = task.name;
    v.candidate = candidate.string();
    v.machine = backend->machine();
  }
  // The candidate's own prebuild stage found its extensions built already.
  if (early) {
    v.stage_seconds.insert(v.stage_seconds.begin(), {"prebuild_and_baselines", early_seconds});
    NoteBaselinesBesideBuild(*early, v);
  } else {
    for (auto& [stage, seconds] : v.stage_seconds)
      if (stage == "prebuild") seconds += early_seconds;
  }
  for (size_t i = 0; i < busy.size(); ++i)
    v.AddNote(notes::EvaluationNotDecided(i + 1, busy.size() + 1, busy[i]));
  const bool passed = v.status == VerdictStatus::kPassed;
  last_passed_ = passed ? candidate : std::filesystem::path();
  last_passed_sanitizer_skip_ = passed ? sanitizer_skip : std::string();
  ResolveVerdictSpeedup(v, options.timing.target_rse);
  if (!warm_pool_->disabled_reason().empty() && !warm_note_given_) {
    v.AddNote(notes::WarmSandboxesOff(warm_pool_->disabled_reason()));
    warm_note_given_ = true;
  }
  v.total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // What its builds went without for later candidates (torch's precompiled
  // header), built now that the verdict waits for nothing more (beside a
  // build, the candidate's verdict still waits).
  if (torch_builder_ && !options.baselines_only) torch_builder_->StartHeaderBuilds();
  return v;
}

std::optional<Verdict> Evaluator::PrebuildBesideBaselines(CompatPrebuilder& prebuilder,
                                                          const Task& task,
                                                          const std::filesystem::path& candidate,
                                                          const EvalOptions& options,
                                                          const ProgressFn& progress) {
  std::optional<Verdict> early;
  prebuilder.PrebuildAll({candidate}, {}, [&] {
    std::error_code ec;
    const std::filesystem::path dir = env_.scratch_root / "baselines-beside-build";
    std::filesystem::create_directories(dir, ec);
    auto model = KindOf(task).programs().BaselinesCandidate(task, dir);
    if (!model.ok()) return;  // the candidate's evaluation says why, if it matters
    EvalOptions o = options;
    o.baselines_only = true;
    o.lint_allow.insert("library");  // the Model is torch's own code
    o.metrics = false;
    o.sanitize = false;
    o.busy_retries = 0;  // a busy GPU leaves them to the candidate's evaluation
    // Its verdict is no one's: its notes stay with it.
    const bool warm_note_given = warm_note_given_;
    auto v = Evaluate(task, *model, o, [&](const std::string& stage) {
      if (progress) progress("baselines, while the candidate compiles: " + stage);
    });
    warm_note_given_ = warm_note_given;
    // What the oracle's allocator kept of that evaluation's value sets is
    // the candidate's to plan with.
    (void)oracle_->ReleaseDeviceMemory();
    if (v.ok()) early = std::move(*v);
  });
  return early;
}

}  // namespace hone
