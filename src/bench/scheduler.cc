#include "bench/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "bench/lanes.h"
#include "bench/prebuild.h"
#include "core/clock.h"
#include "core/fs.h"
#include "report/run_data.h"
#include "task/reference_kind.h"
#include "tune/autotune.h"
#include "verify/note_words.h"
#include "verify/verdict.h"

namespace hone {

BenchScheduler::BenchScheduler(BenchRunInfo run, std::vector<BenchLane> lanes,
                               const EvalOptions& options, BenchListener& listener,
                               BenchTally& tally)
    : run_(std::move(run)),
      lanes_(std::move(lanes)),
      options_(options),
      listener_(listener),
      tally_(tally),
      lane_tasks_(lanes_.size()) {
  if (lanes_.empty()) std::abort();  // a programmer error: nothing would evaluate
  for (const BenchLane& l : lanes_) stats_.push_back({l.name, l.backend->machine(), 0, ""});
}

BenchScheduler::BenchScheduler(BenchRunInfo run, const Backend& backend, Evaluator& evaluator,
                               const EvalOptions& options, BenchListener& listener,
                               BenchTally& tally)
    : BenchScheduler(std::move(run), {BenchLane{backend.name(), &backend, &evaluator, {}}}, options,
                     listener, tally) {}

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
  c.backend = lanes_[0].backend->name();
  if (auto language = lanes_[0].evaluator->env().languages.ForFile(u.candidate); language.ok())
    c.language = (*language)->name;
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
    // A busy verdict (a shared GPU) decided nothing: evaluated again.
    if (auto it = finished.find(u.work_key); it != finished.end() && Decides(it->second.status))
      tally_.Count(it->second.status, it->second.speedup);
    else
      todo.push_back(&u);
  }
  return todo;
}

void BenchScheduler::Prepare(const BenchPlan& plan, const std::vector<const BenchUnit*>& todo) {
  // ModelNew candidates' sandboxes start Python and torch ahead of need,
  // the first while the extensions build. They are started from this
  // thread, which outlives every lane.
  const LanguageRegistry& languages = lanes_.front().evaluator->env().languages;
  if (std::any_of(todo.begin(), todo.end(),
                  [&](const BenchUnit* u) { return languages.IsModelNew(u->candidate); })) {
    for (const BenchLane& l : lanes_) {
      l.evaluator->KeepWarm(true);
      l.evaluator->PrewarmCompat(l.backend->name(), options_);
    }
  }
  auto start = std::chrono::steady_clock::now();
  PrebuildUnits(plan, todo, *lanes_[0].backend, *lanes_[0].evaluator, listener_);
  prebuild_seconds_ = SecondsSince(start);
}

Status BenchScheduler::Run(BenchPlan& plan) {
  tally_.total = static_cast<int>(plan.units.size());
  tally_.lanes = static_cast<int>(lanes_.size());
  HONE_ASSIGN_OR_RETURN(std::vector<const BenchUnit*> todo, Record(plan));
  if (run_.resumed) listener_.Resumed(tally_.done, tally_.total, todo.size());
  Prepare(plan, todo);
  if (!todo.empty()) listener_.Evaluating();
  LanesReport report = RunLanes(
      lanes_.size(), todo.size(),
      [&](size_t lane, size_t i) { return LaneUnit(lane, plan, *todo[i]); },
      [&](const LaneFailure& f, size_t left) {
        std::lock_guard lock(mu_);
        stats_[f.lane].failure = f.status.message();
        tally_.lanes = static_cast<int>(std::max<size_t>(left, 1));
        if (left > 0)
          listener_.LaneRetired(lanes_[f.lane].name,
                                todo[f.item]->label + ": " + f.status.message());
      });
  // Every unit done, by the lanes that went on where a lane was retired.
  if (report.undone.empty()) return Status::Ok();
  const LaneFailure& first = report.failures.front();
  return first.status.With(todo[first.item]->label + ": ");
}

Result<const Task*> BenchScheduler::LaneTask(size_t lane, const BenchPlan& plan,
                                             const BenchUnit& u) {
  const Task& planned = *plan.tasks[u.task].task;
  const BenchLane& l = lanes_[lane];
  // A task in the oracle is each lane's oracle's own: loaded again on this one.
  if (KindOf(planned).site() != ReferenceSite::kOracle || !l.reload) return &planned;
  std::map<size_t, Task>& mine = lane_tasks_[lane];
  if (auto it = mine.find(u.task); it != mine.end()) return &it->second;
  HONE_ASSIGN_OR_RETURN(Task t, l.reload(plan.tasks[u.task].path));
  if (t.hash != planned.hash)
    return Status::Invalid(plan.tasks[u.task].path.string() +
                           ": the file changed while hone ran (loaded again for " + l.name + ")");
  return &mine.emplace(u.task, std::move(t)).first->second;
}

Status BenchScheduler::LaneUnit(size_t lane, BenchPlan& plan, const BenchUnit& u) {
  {
    std::lock_guard lock(mu_);
    if (broken_.count(u.task)) return Status::Ok();
  }
  auto task = LaneTask(lane, plan, u);
  Status st = task.ok() ? RunUnit(lane, **task, u) : task.status();
  if (st.ok()) return st;
  if (st.code() != StatusCode::kInvalidInput && st.code() != StatusCode::kUnavailable) return st;
  // The task is at fault (its reference fails) or cannot run here (it does
  // not fit in memory): say so once, skip its other units (left pending: a
  // resume tries them again) and go on.
  std::lock_guard lock(mu_);
  if (!broken_.insert(u.task).second) return Status::Ok();
  listener_.TaskProblem(u.label + ": " + st.message());
  ++plan.malformed;
  return Status::Ok();
}

void BenchScheduler::Show(size_t lane, const std::string& what) {
  std::lock_guard lock(mu_);
  std::string where = lanes_.size() > 1 ? lanes_[lane].name + " " : "";
  listener_.Show(tally_.Line(where + what));
}

Status BenchScheduler::RunUnit(size_t lane, const Task& task, const BenchUnit& u) {
  bool finished = false;
  HONE_ASSIGN_OR_RETURN(
      int64_t eval_id,
      run_.store->BeginEvaluation(run_.run_id, u.work_key, task.hash, u.candidate_id, &finished));
  if (finished) return Status::Ok();  // done before a crash; counted by Record
  auto start = std::chrono::steady_clock::now();
  EvalOptions options = options_;
  options.lint_allow.insert(u.allow.begin(), u.allow.end());
  // The entry `hone eval` and the service use too: a candidate that declares
  // tunables is evaluated as each of its variants.
  HONE_ASSIGN_OR_RETURN(
      Verdict v, EvaluateCandidate(*lanes_[lane].evaluator, &lanes_[lane].backend->builder(), task,
                                   u.candidate, options, [&](const std::string& stage) {
                                     Show(lane, u.label + ": " + stage);
                                   }));
  HONE_RETURN_IF_ERROR(SanitizeIfBest(lane, task, u, v));
  NoteSharedDevice(lane, v);
  HONE_RETURN_IF_ERROR(run_.store->FinishEvaluation(eval_id, v));
  Count(lane, u, v, SecondsSince(start));
  return Status::Ok();
}

Status BenchScheduler::SanitizeIfBest(size_t lane, const Task& task, const BenchUnit& u,
                                      Verdict& v) {
  const BenchLane& l = lanes_[lane];
  auto language = l.evaluator->env().languages.ForFile(u.candidate);
  if (!run_.sanitize_best || !l.backend->traits().sanitizer || v.status != VerdictStatus::kPassed ||
      !language.ok() || !(*language)->run.sanitizer)
    return Status::Ok();
  {
    std::lock_guard lock(mu_);
    auto best = best_by_task_.find(task.name);
    if (best != best_by_task_.end() && v.timing.speedup <= best->second) return Status::Ok();
  }
  // Outside the lock: the other lanes go on meanwhile. Two lanes may both
  // check a new best of one task; the higher stays the best.
  Show(lane, u.label + ": sanitize (a new best)");
  HONE_RETURN_IF_ERROR(l.evaluator->SanitizeInto(task, u.candidate, options_, v));
  if (v.status != VerdictStatus::kPassed) return Status::Ok();
  std::lock_guard lock(mu_);
  auto [best, first] = best_by_task_.try_emplace(task.name, v.timing.speedup);
  if (!first) best->second = std::max(best->second, v.timing.speedup);
  return Status::Ok();
}

// CPU lanes share one machine: their timings interfere, and the verdict
// says so. Lanes on devices of their own (GPUs) do not.
void BenchScheduler::NoteSharedDevice(size_t lane, Verdict& v) const {
  if (!v.timing.candidate_time) return;
  const std::string& device = lanes_[lane].backend->machine().device;
  long others =
      std::count_if(lanes_.begin(), lanes_.end(),
                    [&](const BenchLane& l) { return l.backend->machine().device == device; }) -
      1;
  if (others > 0) v.AddNote(notes::BenchLanesShareDevice(device, others));
}

void BenchScheduler::Count(size_t lane, const BenchUnit& u, const Verdict& v, double seconds) {
  std::lock_guard lock(mu_);
  ++tally_.fresh;
  tally_.fresh_seconds += seconds;
  for (const auto& [stage, s] : v.stage_seconds) tally_.stage_seconds[stage] += s;
  tally_.kernel_seconds += v.kernel_seconds;
  std::optional<double> speedup;
  if (v.timing.speedup > 0) speedup = v.timing.speedup;
  tally_.Count(std::string(StatusName(v.status)), speedup);
  if (sandbox_missing_.empty()) sandbox_missing_ = v.sandbox.missing;
  ++stats_[lane].evaluated;
  listener_.UnitDone(u, v);
}

}  // namespace hone
