#include "search/optimizer.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "build/build_pool.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "search/lesson_distil.h"
#include "search/lesson_recall.h"
#include "search/run_journal.h"
#include "search/run_record.h"
#include "store/candidate_kind.h"
#include "task/reference_kind.h"
#include "tune/autotune.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {

// Rounds of waiting for a busy GPU (10 s, 20 s, 30 s) before a candidate's
// busy verdict stands.
constexpr int kBusyRounds = 3;

using Clock = std::chrono::steady_clock;

// Finished LLM calls, handed from the calling threads to the loop.
class Inbox {
 public:
  void Put(AttemptResult r) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_.push_back(std::move(r));
    }
    cv_.notify_one();
  }
  std::deque<AttemptResult> TakeAll() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(done_, {});
  }
  // Waits until something arrives or `timeout` passes.
  void Wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return !done_.empty(); });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<AttemptResult> done_;
};

// One run's state; Optimizer::Run drives it.
class Loop {
 public:
  Loop(const Task& task, const Backend& backend, const Language& language, Provider& provider,
       Evaluator& evaluator, const OptimizeOptions& options, SearchStrategy& strategy,
       RunRecord& record, RunJournal* journal, const OptimizeProgress& progress)
      : task_(task),
        language_(language),
        sanitize_best_(options.sanitize_best && backend.traits().sanitizer),
        provider_(provider),
        evaluator_(evaluator),
        builder_(&backend.builder()),
        options_(options),
        strategy_(strategy),
        record_(record),
        journal_(journal),
        progress_(progress) {
    pool_ = std::make_unique<BuildPool>(backend.builder(), options.build_threads);
  }
  ~Loop() {
    for (auto& c : calls_) c.wait();
  }

  Result<OptimizeResult> Run();

 private:
  // The verdict; none when an interrupt came during the evaluation (Ctrl-C
  // at a terminal reaches the sandboxes too, so the verdict may be the
  // interrupt's): not kept, so --resume evaluates it again.
  Result<std::optional<Verdict>> Evaluate(const AttemptResult& r,
                                          const std::filesystem::path& candidate);
  void Issue();
  Status Receive(AttemptResult r);
  Status EvaluateNext();
  Status Finish(AttemptResult& r, const std::filesystem::path& candidate);
  void Progress(const std::string& stage, std::string notice = "") {
    if (progress_)
      progress_({result_.spend, result_.evaluated, result_.passed, in_flight_, stage,
                 result_.sandbox_missing, std::move(notice)});
  }
  bool Interrupted() const { return options_.interrupted && options_.interrupted->load(); }
  // Why nothing more may be asked ("" while the search goes on); out of
  // time or interrupted, the calls still in flight are cancelled.
  std::string StopNow();

  const Task& task_;
  const Language& language_;  // what candidates are asked in (lang/language.h)
  const bool sanitize_best_;  // compute-sanitizer on each new best
  Provider& provider_;
  Evaluator& evaluator_;
  Builder* builder_;  // may be null; prebuilds a reply's tuning variants
  const OptimizeOptions& options_;
  SearchStrategy& strategy_;
  RunRecord& record_;
  RunJournal* journal_;  // may be null
  const OptimizeProgress& progress_;
  std::set<int> verdict_from_store_;  // proposal ids
  std::unique_ptr<BuildPool> pool_;

  Clock::time_point start_ = Clock::now();
  OptimizeResult result_;
  Inbox inbox_;
  std::vector<std::future<void>> calls_;
  int in_flight_ = 0, next_id_ = 0;
  struct Pending {
    AttemptResult attempt;
    std::filesystem::path candidate;
  };
  std::deque<Pending> to_evaluate_;
  std::atomic<bool> cancel_{false};  // calls in flight stop (ChatRequest::cancel)
};

std::string Loop::StopNow() {
  result_.spend.seconds = SecondsSince(start_);
  std::string why = Interrupted() ? "interrupted" : StopReason(options_.budget, result_.spend);
  // Out of time (or told to stop): waiting for replies would overrun. Other
  // budgets let the calls already made finish: their replies are paid for.
  const Budget& b = options_.budget;
  const bool out_of_time = b.max_seconds > 0 && result_.spend.seconds >= b.max_seconds;
  if ((Interrupted() || out_of_time) && in_flight_ > 0 && !cancel_.exchange(true))
    Progress("stopping", "stopping (" + why + "): cancelling " + std::to_string(in_flight_) +
                             " LLM call(s) in flight");
  return why;
}

// One line for a finished attempt: its verdict, or why there was none.
std::string AttemptLine(const AttemptResult& r) {
  std::string head = "candidate " + std::to_string(r.proposal.id) + ": ";
  if (!r.reply.ok)
    // The provider's error says how many attempts it took (once).
    return head + "the LLM call failed: " + r.reply.error;
  if (!r.proposal.wants_code)
    return head + "a reply with " + std::string(OwnKind(r.proposal.kind)) + " (no code asked for)";
  if (!r.verdict)
    return head + "no usable code in the reply (" +
           (r.extraction.detail.empty() ? std::string(ExtractFailureName(r.extraction.failure))
                                        : r.extraction.detail) +
           ")";
  const Verdict& v = *r.verdict;
  if (r.passed())
    return head + fmt::format("passed, {:.2f}x", v.timing.speedup) +
           (v.timing.speedup_unresolved.empty()
                ? ""
                : " (not resolved: " + v.timing.speedup_unresolved + ")");
  std::string why = v.reason.substr(0, v.reason.find('\n'));
  if (why.size() > 160) why = why.substr(0, 157) + "...";
  return head + std::string(StatusName(v.status)) + (why.empty() ? "" : ": " + why);
}

void Loop::Issue() {
  if (!StopNow().empty() || strategy_.Finished()) return;
  int room = options_.llm_concurrency - in_flight_;
  // Do not run far ahead of evaluation: replies waiting to be evaluated
  // would be written without the feedback of the ones before them.
  if (static_cast<int>(to_evaluate_.size()) >= options_.llm_concurrency) room = 0;
  if (options_.budget.max_candidates > 0)
    room = std::min(room, options_.budget.max_candidates - result_.spend.candidates);
  if (room <= 0) return;
  // Finished calls have handed over their results: drop their futures.
  std::erase_if(calls_, [](const std::future<void>& f) {
    return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  });
  for (Proposal& p : strategy_.Propose(room, &next_id_)) {
    ++result_.spend.candidates;
    ++in_flight_;
    if (journal_) {
      if (auto stored = journal_->TakeStoredReply(p)) {
        AttemptResult r;
        r.reply = std::move(*stored);
        r.proposal = std::move(p);
        inbox_.Put(std::move(r));
        Progress("replayed stored candidate " + std::to_string(next_id_ - 1));
        continue;
      }
    }
    if (journal_) journal_->ReserveSeq(p);
    ChatRequest request = options_.sampling;
    request.cancel = &cancel_;
    request.system = p.system;
    request.messages = p.messages;
    calls_.push_back(std::async(std::launch::async, [this, p = std::move(p), request]() mutable {
      AttemptResult r;
      r.reply = provider_.Complete(request);
      r.proposal = std::move(p);
      inbox_.Put(std::move(r));
    }));
    Progress("asked the model for candidate " + std::to_string(next_id_ - 1));
  }
}

Status Loop::Receive(AttemptResult r) {
  --in_flight_;
  if (r.reply.cancelled) {
    // Not asked after all: a resumed run asks it again.
    ++result_.cancelled;
    --result_.spend.candidates;
    return Status::Ok();
  }
  result_.spend.input_tokens += r.reply.input_tokens;
  result_.spend.output_tokens += r.reply.output_tokens;
  result_.spend.dollars += r.reply.cost_usd;
  const bool wants_code = r.proposal.wants_code;
  if (r.reply.ok && wants_code)
    r.extraction = ExtractCode(r.reply.text, language_, r.reply.truncated);
  // Stored before anything else happens to it: a paid-for reply is never lost.
  if (journal_) HONE_RETURN_IF_ERROR(journal_->RecordReply(r));
  if (!r.reply.ok) {
    ++result_.llm_failures;
    result_.last_llm_error = r.reply.error;
    return Finish(r, {});
  }
  if (!wants_code) {
    ++result_.planning_calls;
    return Finish(r, {});  // the strategy reads the reply itself
  }
  if (r.extraction.failure != ExtractFailure::kNone) {
    ++result_.extraction_failures;
    return Finish(r, {});
  }
  HONE_ASSIGN_OR_RETURN(auto path, record_.SaveCandidate(r.proposal.id, r.extraction.code,
                                                         language_.source.extension()));
  if (pool_) pool_->Submit(path);  // warms the cache; the evaluation builds again (a hit)
  to_evaluate_.push_back({std::move(r), path});
  return Status::Ok();
}

Status Loop::EvaluateNext() {
  Pending next = std::move(to_evaluate_.front());
  to_evaluate_.pop_front();
  Progress("evaluating candidate " + std::to_string(next.attempt.proposal.id));
  HONE_ASSIGN_OR_RETURN(std::optional<Verdict> verdict, Evaluate(next.attempt, next.candidate));
  if (!verdict) return Status::Ok();
  Verdict& v = *verdict;
  ++result_.evaluated;
  ++result_.verdicts[std::string(StatusName(v.status))];
  if (result_.sandbox_missing.empty()) result_.sandbox_missing = v.sandbox.missing;
  next.attempt.verdict = std::move(v);
  AttemptResult& r = next.attempt;
  if (r.passed()) {
    ++result_.passed;
    if (r.speedup() > result_.spend.best_speedup || result_.best_id < 0) {
      result_.spend.best_speedup = std::max(result_.spend.best_speedup, r.speedup());
      result_.best_id = r.proposal.id;
      result_.best_code = r.extraction.code;
      result_.best_verdict = *r.verdict;
      result_.best_candidate = next.candidate;
    }
  }
  return Finish(r, next.candidate);
}

Result<std::optional<Verdict>> Loop::Evaluate(const AttemptResult& r,
                                              const std::filesystem::path& candidate) {
  std::optional<Verdict> stored;
  if (journal_) {
    HONE_ASSIGN_OR_RETURN(stored, journal_->BeginEvaluation(r));
  }
  if (stored) {
    verdict_from_store_.insert(r.proposal.id);
    ++result_.stored_verdicts;
    return stored;
  }
  // A reply that declares tunables is evaluated as its variants (autotune.h);
  // a malformed declaration is the reply's compile_error, fed back.
  auto evaluate = [&] {
    return options_.parts.size() > 1
               ? EvaluateOnEveryPart(evaluator_, builder_, options_.parts, candidate, options_.eval)
               : EvaluateCandidate(evaluator_, builder_, task_, candidate, options_.eval);
  };
  HONE_ASSIGN_OR_RETURN(Verdict v, evaluate());
  // A busy GPU decided nothing (the evaluator has measured again already):
  // the search waits longer for it rather than feed the model a non-verdict.
  for (int round = 1; v.status == VerdictStatus::kBusy && round <= kBusyRounds && !Interrupted();
       ++round) {
    const auto pause = std::chrono::seconds(10 * round);
    Progress("candidate " + std::to_string(r.proposal.id) + ": the GPU is busy",
             "candidate " + std::to_string(r.proposal.id) + " was not decided (the GPU is busy): " +
                 "evaluating it again in " + std::to_string(pause.count()) + " s");
    std::this_thread::sleep_for(pause);
    HONE_ASSIGN_OR_RETURN(v, evaluate());
  }
  if (Interrupted()) return std::optional<Verdict>();
  // A new best is sanitized before its verdict is stored, so a resumed run
  // reads the findings back instead of a bare "passed".
  bool new_best = v.status == VerdictStatus::kPassed &&
                  (v.timing.speedup > result_.spend.best_speedup || result_.best_id < 0);
  if (new_best && sanitize_best_) {
    std::string id = std::to_string(r.proposal.id);
    Progress("compute-sanitizer on candidate " + id + " (a new best)",
             "candidate " + id + " passed and is the best so far: compute-sanitizer on it");
    HONE_RETURN_IF_ERROR(evaluator_.SanitizeInto(task_, candidate, options_.eval, v));
    if (Interrupted()) return std::optional<Verdict>();
  }
  if (journal_) HONE_RETURN_IF_ERROR(journal_->FinishEvaluation(r, v));
  return std::optional<Verdict>(std::move(v));
}

Status Loop::Finish(AttemptResult& r, const std::filesystem::path& candidate) {
  const bool from_store = verdict_from_store_.count(r.proposal.id) > 0;
  // The run folder has the attempts finished before a crash already.
  if (!from_store) HONE_RETURN_IF_ERROR(record_.Append(r, candidate));
  if (r.verdict && !from_store) {
    // The strategy sees the verdict a resumed run will read back, not the
    // live one: times do not survive the store exactly, and a prompt that
    // quotes them would differ on replay and be asked again.
    AttemptResult seen = r;
    HONE_ASSIGN_OR_RETURN(seen.verdict, VerdictAsStored(*r.verdict));
    strategy_.Observe(seen);
  } else {
    strategy_.Observe(r);
  }
  Progress("candidate " + std::to_string(r.proposal.id) + " done", AttemptLine(r));
  return Status::Ok();
}

Result<OptimizeResult> Loop::Run() {
  while (true) {
    Issue();
    for (AttemptResult& r : inbox_.TakeAll()) HONE_RETURN_IF_ERROR(Receive(std::move(r)));
    // Interrupted: replies not yet evaluated stay stored, for --resume.
    if (Interrupted()) to_evaluate_.clear();
    if (!to_evaluate_.empty()) {
      HONE_RETURN_IF_ERROR(EvaluateNext());
      continue;
    }
    if (in_flight_ > 0) {
      // Wake up now and then: the time budget may run out, or Ctrl-C come,
      // while waiting; then the calls in flight are cancelled.
      inbox_.Wait(std::chrono::milliseconds(200));
      StopNow();
      continue;
    }
    // Nothing in flight and nothing to evaluate: done unless the strategy
    // has more to propose right now.
    Issue();
    if (in_flight_ == 0) break;
  }
  result_.spend.seconds = SecondsSince(start_);
  result_.interrupted = Interrupted();
  result_.stop_reason =
      result_.interrupted ? "interrupted" : StopReason(options_.budget, result_.spend);
  if (result_.stop_reason.empty()) result_.stop_reason = "the strategy made all its proposals";
  return result_;
}

// The reference's time on the timed case, for the first turn: the task's own
// reference (a PyTorch task's Model, as its own ModelNew) evaluated as a
// candidate, which also caches a PyTorch task's baselines for the first
// real candidate. Left unmeasured, and out of the prompt, when timing is off
// or that evaluation does not pass.
ReferenceTiming MeasureReferenceNow(const Task& task, const Backend& backend, Evaluator& evaluator,
                                    EvalOptions options, const std::filesystem::path& dir) {
  ReferenceTiming r;
  if (!options.time) return r;
  auto candidate = KindOf(task).programs().AsCandidate(task, backend.traits().tasks_as, dir);
  if (!candidate.ok()) return r;
  options.lint_allow.insert(candidate->lint_allow.begin(), candidate->lint_allow.end());
  if (!candidate->what.empty()) r.what = candidate->what;
  options.backend = backend.name();
  auto v = evaluator.Evaluate(task, candidate->file, options);
  if (v.ok() && v->status == VerdictStatus::kPassed && v->timing.reference_time)
    r.seconds = v->timing.reference_time->summary.median;
  return r;
}

// MeasureReferenceNow once per run folder: a resumed run's first turn is
// the prompt it stored replies for, word for word.
ReferenceTiming MeasureReference(const Task& task, const Backend& backend, Evaluator& evaluator,
                                 const EvalOptions& options, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "reference_time.json";
  if (auto text = ReadFile(file); text.ok()) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_object() && j.contains("seconds") && j["seconds"].is_number())
      return {j["seconds"].get<double>(), j.value("what", "the reference")};
  }
  ReferenceTiming r = MeasureReferenceNow(task, backend, evaluator, options, dir);
  (void)WriteFileAtomic(file, JsonText(nlohmann::json{{"seconds", r.seconds}, {"what", r.what}}));
  return r;
}

// The machine the run's prompts describe, frozen in its folder the first
// time (machine.json): a resumed run's prompts must read word for word as
// the stored ones, and the cached ceilings may have been measured again
// since (a cleared cache, a busy GPU's measurement, which is never cached,
// another hone writing the cache meanwhile).
MachineInfo MachineForRun(const MachineInfo& measured, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "machine.json";
  if (auto text = ReadFile(file); text.ok()) {
    auto stored = MachineFromJson(nlohmann::json::parse(*text, nullptr, false));
    if (stored.ok() && stored->kind == measured.kind) return *stored;
  }
  (void)WriteFileAtomic(file, JsonText(MachineToJson(measured), 2));
  return measured;
}

}  // namespace

Result<const Language*> AskedLanguage(const LanguageRegistry& languages, const std::string& name,
                                      const Task& task, const Backend& backend) {
  const std::string& device = backend.traits().tasks_as;
  if (name.empty()) {
    if (const Language* l = languages.NativeFor(device)) return l;
    return Status::Invalid("no language of hone's writes kernels for the " + backend.name() +
                           " backend");
  }
  HONE_ASSIGN_OR_RETURN(const Language* l, languages.Get(name));
  if (!l->run.RunsOn(device))
    return Status::Invalid("--language " + name + ": " + l->label +
                           " candidates do not run on the " + backend.name() + " backend");
  if (l->run.modelnew() && !KindOf(task).TakesModelNew())
    return Status::Invalid("--language " + name + ": " + l->label +
                           " candidates are KernelBench ModelNew files, for PyTorch tasks (.py), "
                           "not " +
                           task.dir.string());
  return l;
}

namespace {

// The lessons the run's first turn shows (lesson_recall.h), by their ids.
Result<std::vector<ShownLesson>> RunLessons(const OptimizeOptions& o, const Task& task,
                                            const Backend& backend, const RunJournal* journal,
                                            const std::filesystem::path& dir) {
  if (!o.lessons || !o.store) return std::vector<ShownLesson>();
  return LessonsForRun(*o.store, SignatureOf(task, backend.name()), dir,
                       journal && journal->stored_attempts() > 0);
}

}  // namespace

Optimizer::Optimizer(const Task& task, const Backend& backend, Provider& provider,
                     const PromptBuilder& prompts, Evaluator& evaluator, OptimizeOptions options)
    : task_(task),
      backend_(backend),
      provider_(provider),
      prompts_(prompts),
      evaluator_(evaluator),
      options_(std::move(options)) {
  // Its candidates' extension says the same for the CPU and CUDA backends;
  // another backend of the same language needs its name.
  options_.eval.backend = backend.name();
}

Result<OptimizeResult> Optimizer::Run(const OptimizeProgress& progress) {
  HONE_ASSIGN_OR_RETURN(
      const Language* language,
      AskedLanguage(evaluator_.env().languages, options_.language, task_, backend_));
  const Language& language_ = *language;
  HONE_ASSIGN_OR_RETURN(RunRecord record, RunRecord::Create(options_.run_dir));
  const LlmProvenance provenance{provider_.model().provider, provider_.model().model,
                                 SamplingJson(options_.sampling), prompts_.version()};
  std::optional<RunJournal> journal;
  if (options_.store) {
    HONE_ASSIGN_OR_RETURN(
        journal, RunJournal::Open(*options_.store, options_.run_id, task_.hash, backend_.name(),
                                  language_.name, options_.options_hash));
    journal->SetProvenance(provenance);
  }
  StrategyContext context;
  context.task = &task_;
  context.language = &language_;
  context.machine = MachineForRun(backend_.machine(), record.dir());
  context.prompts = &prompts_;
  context.reference = MeasureReference(task_, backend_, evaluator_, options_.eval, record.dir());
  HONE_ASSIGN_OR_RETURN(auto shown, RunLessons(options_, task_, backend_,
                                               journal ? &*journal : nullptr, record.dir()));
  for (const ShownLesson& l : shown) context.lessons.push_back(l.text);
  HONE_ASSIGN_OR_RETURN(auto strategy, MakeStrategy(options_.strategy, context));
  Result<OptimizeResult> result = [&]() -> Result<OptimizeResult> {
    Loop loop(task_, backend_, language_, provider_, evaluator_, options_, *strategy, record,
              journal ? &*journal : nullptr, progress);
    return loop.Run();
  }();
  if (!result.ok()) return result;
  result->strategy_summary = strategy->Summary();
  if (journal) result->replayed = journal->replayed();
  result->provenance = provenance;
  for (const ShownLesson& l : shown) result->lessons_shown.push_back(l.id);
  if (options_.lessons && options_.store && !result->interrupted) {
    auto added = RecordRunLessons(*options_.store, options_.run_id, task_, backend_.name());
    if (added.ok())
      result->lessons_added = *added;
    else
      result->lessons_error = added.status().message();
  }
  HONE_RETURN_IF_ERROR(record.WriteSummary(
      OptimizeResultJson(*result, provider_.model().text(), task_.name, options_.strategy.name)));
  return result;
}

std::string OptimizeResultJson(const OptimizeResult& r, const std::string& model,
                               const std::string& task, const std::string& strategy) {
  const Spend& s = r.spend;
  nlohmann::json j = {{"task", task},
                      {"model", model},
                      {"strategy", strategy},
                      {"stop_reason", r.stop_reason},
                      {"sandbox_missing", r.sandbox_missing},
                      {"candidates", s.candidates},
                      {"evaluated", r.evaluated},
                      {"passed", r.passed},
                      {"llm_failures", r.llm_failures},
                      {"last_llm_error", r.last_llm_error},
                      {"cancelled", r.cancelled},
                      {"interrupted", r.interrupted},
                      {"extraction_failures", r.extraction_failures},
                      {"planning_calls", r.planning_calls},
                      {"verdicts", r.verdicts},
                      {"input_tokens", s.input_tokens},
                      {"output_tokens", s.output_tokens},
                      {"dollars", s.dollars},
                      {"seconds", s.seconds},
                      {"best_speedup", s.best_speedup},
                      {"replayed", r.replayed},
                      {"stored_verdicts", r.stored_verdicts},
                      {"llm", ProvenanceJson(r.provenance)},
                      {"lessons", {{"shown", r.lessons_shown}, {"added", r.lessons_added}}}};
  if (!r.lessons_error.empty()) j["lessons"]["error"] = r.lessons_error;
  if (!r.strategy_summary.is_null()) j["strategy_summary"] = r.strategy_summary;
  if (r.best_id >= 0) {
    j["best"] = {{"id", r.best_id}, {"candidate", r.best_candidate.string()}};
    if (r.best_verdict) j["best"]["verdict"] = VerdictToJson(*r.best_verdict);
  }
  return JsonText(j, 2);
}

}  // namespace hone
