#include "report/run_data.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "store/candidate_kind.h"
#include "verify/verdict.h"

namespace hone {
namespace {

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS.mmmZ"; nullopt otherwise.
std::optional<double> ParseTime(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) < 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

std::string OutcomeOf(const AttemptView& a) {
  if (!AsksForCode(a.candidate.kind)) return a.call && !a.call->ok ? "llm_error" : "answered";
  if (a.evaluation) return a.evaluation->state == "finished" ? a.evaluation->status : "pending";
  if (a.call && !a.call->ok) return "llm_error";
  if (!a.candidate.source) return "no_code";
  return "not_evaluated";
}

// The run's suite; an optimize run that never listed its tasks gets the
// tasks its candidates were for.
Result<std::vector<RunTaskRow>> TasksOf(Store& store, int64_t run_id,
                                        const std::vector<AttemptView>& attempts) {
  HONE_ASSIGN_OR_RETURN(auto tasks, store.RunTasks(run_id));
  if (!tasks.empty()) return tasks;
  for (const auto& a : attempts) {
    const std::string& hash = a.candidate.task_hash;
    if (std::any_of(tasks.begin(), tasks.end(), [&](const auto& t) { return t.task_hash == hash; }))
      continue;
    HONE_ASSIGN_OR_RETURN(auto row, store.GetTask(hash));
    RunTaskRow t;
    t.task_hash = hash;
    t.name = row ? row->name : hash.substr(0, 12);
    t.path = row ? row->path : "";
    t.position = static_cast<int>(tasks.size());
    tasks.push_back(std::move(t));
  }
  return tasks;
}

}  // namespace

double SecondsBetween(const std::string& from, const std::string& to) {
  auto a = ParseTime(from), b = ParseTime(to);
  return a && b ? *b - *a : 0.0;
}

Result<RunData> LoadRunData(Store& store, int64_t run_id) {
  RunData d;
  HONE_ASSIGN_OR_RETURN(d.run, store.GetRun(run_id));
  HONE_ASSIGN_OR_RETURN(auto rows, store.RunCandidates(run_id));
  HONE_ASSIGN_OR_RETURN(d.calls, store.LlmCalls(run_id));
  std::map<int64_t, const LlmCallRow*> call_of;
  for (const auto& c : d.calls)
    if (c.candidate_id) call_of[*c.candidate_id] = &c;
  for (auto& row : rows) {
    AttemptView a;
    a.candidate = std::move(row.candidate);
    a.evaluation = std::move(row.evaluation);
    if (auto it = call_of.find(a.candidate.id); it != call_of.end()) a.call = *it->second;
    a.outcome = OutcomeOf(a);
    const std::string& done = a.evaluation && !a.evaluation->finished.empty()
                                  ? a.evaluation->finished
                                  : a.candidate.created;
    a.at_seconds = std::max(0.0, SecondsBetween(d.run.created, done));
    (AsksForCode(a.candidate.kind) ? d.attempts : d.planning).push_back(std::move(a));
  }
  for (auto* list : {&d.attempts, &d.planning})
    std::sort(list->begin(), list->end(), [](const AttemptView& x, const AttemptView& y) {
      return x.candidate.id < y.candidate.id;
    });
  HONE_ASSIGN_OR_RETURN(d.tasks, TasksOf(store, run_id, d.attempts));
  std::map<std::string, const RunTaskRow*> task_of;
  for (const auto& t : d.tasks) task_of[t.task_hash] = &t;
  for (auto* list : {&d.attempts, &d.planning})
    for (auto& a : *list) {
      auto it = task_of.find(a.candidate.task_hash);
      a.task_name = it != task_of.end() ? it->second->name : a.candidate.task_hash.substr(0, 12);
      a.category = it != task_of.end() ? it->second->category : "";
    }
  d.metrics = ComputeSuiteMetrics(SuiteTasksOf(d), OutcomesOf(d));
  return d;
}

std::vector<SuiteTask> SuiteTasksOf(const RunData& run) {
  std::vector<SuiteTask> out;
  for (const auto& t : run.tasks) out.push_back({t.task_hash, t.name, t.category});
  return out;
}

std::vector<TaskOutcome> OutcomesOf(const RunData& run) {
  std::vector<TaskOutcome> out;
  for (const auto& a : run.attempts) {
    // Work not done yet is not a result; a failed LLM call or a reply
    // without code is a failed attempt.
    if (a.outcome == "pending" || a.outcome == "not_evaluated") continue;
    TaskOutcome o;
    o.task = a.candidate.task_hash;
    o.passed = a.passed();
    o.decided = Decides(a.outcome);
    if (a.evaluation) {
      o.speedup = a.evaluation->speedup;
      o.speedup_compile = a.evaluation->speedup_compile;
      o.sol_percent = a.evaluation->sol_percent;
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::string BaselineWord(const RunData& run) {
  bool eager = false, reference = false;
  for (const RunTaskRow& t : run.tasks) {
    std::error_code ec;
    std::filesystem::path path(t.path);
    // A native task is a folder with a task.toml; everything else hone
    // reads is defined in PyTorch (KernelBench files, FlashInfer-Trace and
    // robust-kbench problems).
    bool native = std::filesystem::is_regular_file(path / "task.toml", ec) ||
                  (path.extension().empty() && !std::filesystem::exists(path, ec));
    (native ? reference : eager) = true;
  }
  if (eager && reference) return "baseline";
  return reference ? "reference" : "eager";
}

int MalformedTasksOf(const RunData& run) {
  const auto summary = nlohmann::json::parse(run.run.summary, nullptr, false);
  if (!summary.is_object()) return 0;
  const auto it = summary.find("malformed_tasks");
  return it != summary.end() && it->is_number_integer() ? it->get<int>() : 0;
}

}  // namespace hone
