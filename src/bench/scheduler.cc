#include "bench/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bench/prebuild.h"
#include "core/clock.h"
#include "core/fs.h"
#include "report/run_data.h"

namespace hone {

BenchScheduler::BenchScheduler(BenchRunInfo run, const Backend& backend, Evaluator& evaluator,
                               const EvalOptions& options, BenchListener& listener,
                               BenchTally& tally)
    : run_(std::move(run)),
      backend_(backend),
      evaluator_(evaluator),
      options_(options),
      listener_(listener),
      tally_(tally) {}

// Stores the unit's candidate (idempotent on its place in the plan) and
// gives it its work key: the task, the source and the unit's label, so that
// two solution files with the same code are two units. `stored` is what the
// run had before (a resumed run): a unit that differs from it means the
// suite changed since the run started, which --resume refuses.
Status BenchScheduler::RecordUnit(const Task& task, BenchUnit& u, int seq,
                                  const std::map<int, CandidateRow>& stored) {
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(u.candidate));
  if (auto it = stored.find(seq); it != stored.end()) {
    const CandidateRow& was = it->second;
    if (was.label != u.label || was.source_hash != SourceHash(source))
      return Status::Invalid(fmt::format(
          "the suite changed since run {} started: unit {} was {}, is now {} ({}); start a new "
          "run",
          run_.run_id, seq, was.label, u.label,
          was.label == u.label ? "its source differs" : "files were added or removed"));
  }
  CandidateRow c;
  c.run_id = run_.run_id;
  c.task_hash = task.hash;
  c.seq = seq;
  c.kind = "solution";
  c.label = u.label;
  c.backend = backend_.name();
  c.source = source;
  HONE_ASSIGN_OR_RETURN(u.candidate_id, run_.store->AddCandidate(c));
  u.work_key = WorkKey(task.hash, SourceHash(source) + "#" + u.label, run_.options_hash);
  return Status::Ok();
}

Result<std::vector<const BenchUnit*>> BenchScheduler::Record(BenchPlan& plan) {
  std::map<std::string, EvaluationRow> finished;  // before this invocation, by work key
  std::map<int, CandidateRow> units_before;
  if (run_.resumed) {
    HONE_ASSIGN_OR_RETURN(RunData before, LoadRunData(*run_.store, run_.run_id));
    for (const auto& at : before.attempts) {
      units_before[at.candidate.seq] = at.candidate;
      if (at.evaluation && at.evaluation->state == "finished")
        finished[at.evaluation->work_key] = *at.evaluation;
    }
  }
  std::vector<const BenchUnit*> todo;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    BenchUnit& u = plan.units[i];
    HONE_RETURN_IF_ERROR(
        RecordUnit(*plan.tasks[u.task].task, u, static_cast<int>(i), units_before));
    if (auto it = finished.find(u.work_key); it != finished.end())
      tally_.Count(it->second.status, it->second.speedup);
    else
      todo.push_back(&u);
  }
  return todo;
}

void BenchScheduler::Prepare(const BenchPlan& plan, const std::vector<const BenchUnit*>& todo) {
  // ModelNew candidates' sandboxes start Python and torch ahead of need,
  // the first while the extensions build.
  if (std::any_of(todo.begin(), todo.end(),
                  [](const BenchUnit* u) { return u->candidate.extension() == ".py"; })) {
    evaluator_.KeepWarm(true);
    evaluator_.PrewarmCompat(backend_.name(), options_);
  }
  auto start = std::chrono::steady_clock::now();
  PrebuildUnits(plan, todo, backend_, evaluator_, listener_);
  prebuild_seconds_ = SecondsSince(start);
}

Status BenchScheduler::Run(BenchPlan& plan) {
  tally_.total = static_cast<int>(plan.units.size());
  HONE_ASSIGN_OR_RETURN(std::vector<const BenchUnit*> todo, Record(plan));
  if (run_.resumed) listener_.Resumed(tally_.done, tally_.total, todo.size());
  Prepare(plan, todo);
  if (!todo.empty()) listener_.Evaluating();
  std::set<size_t> broken;  // tasks whose evaluation failed as a whole
  for (const BenchUnit* u : todo) {
    if (broken.count(u->task)) continue;
    Status st = RunUnit(*plan.tasks[u->task].task, *u);
    if (st.ok()) continue;
    if (st.code() != StatusCode::kInvalidInput && st.code() != StatusCode::kUnavailable)
      return st.With(u->label + ": ");
    // The task is at fault (its reference fails) or cannot run here (it does
    // not fit in memory): say so, skip its other units (left pending: a
    // resume tries them again) and go on.
    listener_.TaskProblem(u->label + ": " + st.message());
    broken.insert(u->task);
    ++plan.malformed;
  }
  return Status::Ok();
}

Status BenchScheduler::RunUnit(const Task& task, const BenchUnit& u) {
  bool finished = false;
  HONE_ASSIGN_OR_RETURN(
      int64_t eval_id,
      run_.store->BeginEvaluation(run_.run_id, u.work_key, task.hash, u.candidate_id, &finished));
  if (finished) return Status::Ok();  // done before a crash; counted by Record
  auto start = std::chrono::steady_clock::now();
  HONE_ASSIGN_OR_RETURN(
      Verdict v, evaluator_.Evaluate(task, u.candidate, options_, [&](const std::string& stage) {
        listener_.Show(tally_.Line(u.label + ": " + stage));
      }));
  HONE_RETURN_IF_ERROR(SanitizeIfBest(task, u, v));
  HONE_RETURN_IF_ERROR(run_.store->FinishEvaluation(eval_id, v));
  Count(v, SecondsSince(start));
  listener_.UnitDone(u, v);
  return Status::Ok();
}

Status BenchScheduler::SanitizeIfBest(const Task& task, const BenchUnit& u, Verdict& v) {
  if (!run_.sanitize_best || !backend_.traits().sanitizer || v.status != VerdictStatus::kPassed ||
      u.candidate.extension() == ".py")
    return Status::Ok();
  auto [best, first] = best_by_task_.try_emplace(task.name, v.speedup);
  if (!first && v.speedup <= best->second) return Status::Ok();
  listener_.Show(tally_.Line(u.label + ": sanitize (a new best)"));
  HONE_RETURN_IF_ERROR(evaluator_.SanitizeInto(task, u.candidate, options_, v));
  if (v.status == VerdictStatus::kPassed)
    best->second = v.speedup;
  else if (first)
    best_by_task_.erase(best);
  return Status::Ok();
}

void BenchScheduler::Count(const Verdict& v, double seconds) {
  ++tally_.fresh;
  tally_.fresh_seconds += seconds;
  for (const auto& [stage, s] : v.stage_seconds) tally_.stage_seconds[stage] += s;
  tally_.kernel_seconds += v.kernel_seconds;
  std::optional<double> speedup;
  if (v.speedup > 0) speedup = v.speedup;
  tally_.Count(std::string(StatusName(v.status)), speedup);
  if (sandbox_missing_.empty()) sandbox_missing_ = v.sandbox_missing;
}

}  // namespace hone
