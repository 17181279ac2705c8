#include "serve/job_evaluator.h"

#include <algorithm>
#include <sstream>

#include "core/backend_names.h"
#include "core/fs.h"
#include "core/wording.h"
#include "task/reference_kind.h"
#include "task/task_loader.h"
#include "tune/autotune.h"

namespace hone {

namespace {

using json = nlohmann::json;

// Loaded tasks kept at most; the map is emptied when it is full.
constexpr size_t kMaxTasks = 256;

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

}  // namespace

Result<JobPart> PartForJob(const EvalJob& job, const JobFiles& files, const FormatRegistry& formats,
                           const LanguageRegistry& languages) {
  JobPart out;
  out.problem = files.problem();
  out.candidate = files.candidate();
  out.job = job;
  auto format = formats.ForProblem(files.problem());
  if (!format.ok()) {
    if (job.candidate_kind == kSolutionKind)
      return Status::Invalid("candidate.kind " + std::string(kSolutionKind) +
                             ": the problem is not in a format with solutions of its own");
    return out;  // hone reads it as it is
  }
  HONE_ASSIGN_OR_RETURN(std::vector<ProblemPart> parts,
                        (*format)->Parts(files.problem(), PartOptions{}));
  const std::string asked = job.config.value("part", "");
  std::vector<const ProblemPart*> chosen;
  for (const ProblemPart& p : parts)
    if (parts.size() == 1 || (!asked.empty() && (p.id.rfind(asked, 0) == 0 || p.label == asked)))
      chosen.push_back(&p);
  if (chosen.size() != 1) {
    std::string names;
    for (const ProblemPart& p : parts)
      names += (names.empty() ? "" : ", ") + (p.id.empty() ? p.label : p.id + " (" + p.label + ")");
    return Status::Invalid(
        "config.part: " +
        std::string(asked.empty()
                        ? "the problem has " + std::to_string(parts.size()) + " parts; name one"
                        : "'" + asked + "' names " + std::to_string(chosen.size()) +
                              " of the problem's parts") +
        ": " + names);
  }
  out.problem = chosen.front()->load;
  out.label = chosen.front()->label;
  // What the format makes of the candidate: a solution in its own form (a
  // FlashInfer-Trace JSON), a robust-kbench forward() module, or the file.
  HONE_ASSIGN_OR_RETURN(FormatCandidate c,
                        (*format)->Candidate(files.problem(), files.candidate()));
  out.allow = c.allow;
  if (job.candidate_kind == kSolutionKind && c.file == files.candidate())
    return Status::Invalid("candidate.kind " + std::string(kSolutionKind) + ": a " +
                           (*format)->name() + " problem has no solutions of its own form");
  if (c.file != files.candidate()) {
    out.candidate = c.file;
    HONE_ASSIGN_OR_RETURN(const Language* language, languages.ForFile(c.file));
    out.job.candidate_kind = language->run.modelnew() ? "modelnew" : language->name;
    HONE_ASSIGN_OR_RETURN(out.job.candidate_code, ReadFile(c.file));
  }
  return out;
}

Result<const Language*> JobLanguage(const EvalJob& job, const LanguageRegistry& languages) {
  HONE_ASSIGN_OR_RETURN(const Language* kind, languages.Get(job.candidate_kind));
  if (!kind->run.modelnew()) return kind;
  // A ModelNew file's text says what its kernels are written in.
  auto language = languages.ForSource(job.CandidateFileName(languages), job.candidate_code);
  return language.ok() ? *language : kind;
}

Result<std::string> JobBackend(const EvalJob& job, const std::string& worker_backend,
                               const LanguageRegistry& languages, const BackendRegistry& backends) {
  std::string asked = job.config.value("backend", "");
  if (!asked.empty()) HONE_RETURN_IF_ERROR(CheckBackendIn(backends, asked, "config.backend"));
  HONE_ASSIGN_OR_RETURN(const Language* language, JobLanguage(job, languages));
  // A backend runs the language when the device its tasks are written for
  // is one the language runs on.
  auto device_of = [&](const std::string& backend) {
    const BackendKind* kind = backends.Kind(backend);
    return kind ? kind->traits.tasks_as : backend;
  };
  auto first_for = [&](const std::string& device) {
    const BackendKind* kind = KindForDevice(backends, device);
    return kind ? kind->name : device;
  };
  std::string backend = !asked.empty() ? asked
                        : language->run.RunsOn(device_of(worker_backend))
                            ? worker_backend
                            : first_for(language->run.devices.front());
  if (!language->run.RunsOn(device_of(backend))) {
    return Status::Invalid("config.backend " + asked + ": a " + language->label +
                           " candidate runs on " + OneOf(language->run.devices));
  }
  // The worker opened the host's backend and its own: another needs a
  // worker on its device.
  if (backend != worker_backend && backend != kHostBackend) {
    const BackendKind* kind = backends.Kind(backend);
    const std::string noun = kind ? kind->traits.device_noun : backend;
    return Status::Unavailable("this worker has no " + noun + " (hone worker --backend " +
                               worker_backend + "); a " + backend + " job needs a " + noun +
                               " worker");
  }
  return backend;
}

Result<EvalOptions> ApplyJobConfig(const EvalOptions& base, const json& config,
                                   const LanguageRegistry& languages) {
  EvalOptions o = base;
  if (config.contains("timeout_s")) {
    double s = config["timeout_s"].get<double>();
    if (!(s > 0)) return Status::Invalid("config.timeout_s: must be positive");
    o.total_timeout =
        std::min(o.total_timeout, std::chrono::milliseconds(static_cast<int64_t>(s * 1000)));
  }
  if (config.contains("allow")) {
    HONE_ASSIGN_OR_RETURN(
        auto rules, ParseAllowedRules(SplitCommas(config["allow"].get<std::string>()), languages));
    o.lint_allow.insert(rules.begin(), rules.end());
  }
  if (config.contains("baselines"))
    HONE_RETURN_IF_ERROR(
        ApplyBaselines(config["baselines"].get<std::string>(), "config.baselines", o));
  return o;
}

void ApplyJobSeeds(Task& task, const json& config) {
  if (!config.contains("seeds") || !config["seeds"].is_number()) return;
  int asked = static_cast<int>(std::clamp(config["seeds"].get<double>(), 0.0, 16.0));
  task.seeds = std::max(task.seeds, asked);
}

ContextJobEvaluator::ContextJobEvaluator(std::unique_ptr<EvalContext> ctx, WorkerEvalSetup setup)
    : ctx_(std::move(ctx)), setup_(std::move(setup)) {
  HONE_CHECK(setup_.formats != nullptr, "a job evaluator needs the entry point's format registry");
}

ContextJobEvaluator::~ContextJobEvaluator() = default;

// The Evaluator copies the context's environment, so it is made again
// when a PyTorch problem started (or moved) the oracle.
Evaluator& ContextJobEvaluator::EvaluatorForContext() {
  if (!evaluator_ || evaluator_->oracle() != ctx_->oracle.get()) {
    evaluator_ = std::make_unique<Evaluator>(ctx_->env, ctx_->oracle.get());
    evaluator_->KeepWarm(true);
  }
  return *evaluator_;
}

Result<Task> ContextJobEvaluator::LoadFor(const EvalJob& job, const std::filesystem::path& problem,
                                          const std::string& backend) {
  std::string key = problem.string() + "|" + backend;
  bool named = job.problem_code.empty();
  if (named) {
    if (auto it = tasks_.find(key); it != tasks_.end()) {
      // The oracle must be the one that loaded it (another backend's job
      // may have moved it since).
      if (LoadsThroughOracle(problem)) HONE_RETURN_IF_ERROR(StartOracle(*ctx_, backend));
      return it->second;
    }
  }
  if (LoadsThroughOracle(problem)) HONE_RETURN_IF_ERROR(StartOracle(*ctx_, backend));
  HONE_ASSIGN_OR_RETURN(Task task, LoadTask(*ctx_, problem.string(), backend, setup_.sizes));
  if (named) {
    if (tasks_.size() >= kMaxTasks) tasks_.clear();
    tasks_.emplace(key, task);
  }
  return task;
}

Result<Verdict> ContextJobEvaluator::Evaluate(const EvalJob& job, const JobFiles& files) {
  // A problem in another format: its part, and a solution in its own form
  // turned into the file hone evaluates (as `hone eval` does).
  const LanguageRegistry& languages = ctx_->env.languages;
  HONE_ASSIGN_OR_RETURN(JobPart part, PartForJob(job, files, *setup_.formats, languages));
  HONE_ASSIGN_OR_RETURN(std::string backend,
                        JobBackend(part.job, setup_.backend, languages, ctx_->env.backends));
  HONE_ASSIGN_OR_RETURN(EvalOptions options, ApplyJobConfig(setup_.options, job.config, languages));
  options.backend = backend;
  options.lint_allow.insert(part.allow.begin(), part.allow.end());
  auto language = JobLanguage(part.job, languages);
  const bool modelnew = language.ok() && (*language)->run.modelnew();
  // A ModelNew's sandbox and builds start before its problem loads, so that
  // they overlap the load (seconds at full size: a worker's first job).
  const bool early = modelnew && LoadsThroughOracle(part.problem);
  if (early) {
    HONE_RETURN_IF_ERROR(StartOracle(*ctx_, backend));
    EvaluatorForContext().PrewarmCompat(backend, options);
    EvaluatorForContext().StartCompatBuild(part.candidate);
  }
  HONE_ASSIGN_OR_RETURN(Task task, LoadFor(job, part.problem, backend));
  ApplyJobSeeds(task, job.config);
  Evaluator& evaluator = EvaluatorForContext();
  if (modelnew && !early) evaluator.PrewarmCompat(backend, options);
  // The entry `hone eval` uses: a reward and an eval never differ on one file.
  HONE_ASSIGN_OR_RETURN(Verdict v, EvaluateCandidate(evaluator, &ctx_->backend(backend).builder(),
                                                     task, part.candidate, options));
  if (setup_.record) {
    // The store is a record, not the answer: a failure to write it is said
    // and the result still goes to the queue.
    if (Status st = setup_.record->Record(job, task, part.problem, backend, v); !st.ok())
      std::fprintf(stderr, "hone: worker: --store: %s\n", st.message().c_str());
  }
  return v;
}

}  // namespace hone
