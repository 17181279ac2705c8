#include "report/run_summary_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/json_text.h"
#include "llm/provenance.h"
#include "report/arm_summary.h"
#include "report/idea_tree.h"
#include "report/json_or_null.h"

namespace hone {
namespace {

using json = nlohmann::json;

// A stored JSON column, or null when it does not parse.
json ParseOrNull(const std::string& text) {
  if (text.empty()) return nullptr;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json(nullptr) : j;
}

// A machine's name from a JSON value: a string, or an object's "name".
std::string MachineName(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.contains("name") && j["name"].is_string()) return j["name"];
  return "";
}

std::string MachineOf(const RunData& run) {
  for (const std::string* text : {&run.run.config, &run.run.summary}) {
    json j = ParseOrNull(*text);
    if (j.is_object() && j.contains("machine"))
      if (std::string name = MachineName(j["machine"]); !name.empty()) return name;
  }
  for (const auto& a : run.attempts) {
    if (!a.evaluation || a.evaluation->verdict.empty()) continue;
    json v = ParseOrNull(a.evaluation->verdict);
    if (v.is_object() && v.contains("machine"))
      if (std::string name = MachineName(v["machine"]); !name.empty()) return name;
  }
  return "";
}

std::string ModelOf(const RunData& run) {
  std::string first, names;
  std::set<std::string> seen;
  for (const auto& c : run.calls) {
    if (c.model.empty()) continue;
    if (first.empty())
      first = ProvenanceLine({c.provider, c.model, ParseOrNull(c.sampling), c.prompt_version});
    if (seen.insert(c.provider + ":" + c.model).second)
      names += (names.empty() ? "" : ", ") + c.provider + ":" + c.model;
  }
  if (seen.size() > 1) return names;
  if (!first.empty()) return first;
  json config = ParseOrNull(run.run.config);
  if (config.is_object() && config.contains("model") && config["model"].is_string())
    return config["model"];
  return "";
}

bool Better(const std::optional<double>& x, const std::optional<double>& best) {
  return x && std::isfinite(*x) && *x > 0 && (!best || *x > *best);
}

void AddAttempt(TaskSummary& t, const AttemptView& a, size_t index) {
  ++t.attempts;
  if (!a.passed()) return;
  ++t.passed;
  const EvaluationRow& e = *a.evaluation;
  bool faster = Better(e.speedup, t.speedup);
  if (faster) t.speedup = e.speedup;
  if (faster || !t.best) t.best = index;
  if (Better(e.speedup_compile, t.speedup_compile)) t.speedup_compile = e.speedup_compile;
  if (Better(e.sol_percent, t.sol_percent)) t.sol_percent = e.sol_percent;
}

std::vector<TaskSummary> TaskSummaries(const RunData& run) {
  std::vector<TaskSummary> tasks;
  std::map<std::string, size_t> index_of;
  for (const auto& t : run.tasks) {
    index_of[t.task_hash] = tasks.size();
    TaskSummary s;
    s.task_hash = t.task_hash;
    s.name = t.name;
    s.category = t.category;
    tasks.push_back(std::move(s));
  }
  for (size_t i = 0; i < run.attempts.size(); ++i) {
    const AttemptView& a = run.attempts[i];
    auto it = index_of.find(a.candidate.task_hash);
    if (it != index_of.end()) AddAttempt(tasks[it->second], a, i);
  }
  return tasks;
}

std::vector<ReasonCount> ReasonCounts(const RunData& run) {
  std::map<std::pair<std::string, std::string>, int> counts;
  for (const auto& a : run.attempts) {
    if (a.passed() || a.outcome == "pending" || a.outcome == "not_evaluated") continue;
    ++counts[{a.outcome, FirstLine(AttemptReason(a))}];
  }
  std::vector<ReasonCount> out;
  for (const auto& [key, n] : counts) out.push_back({key.first, key.second, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const ReasonCount& x, const ReasonCount& y) { return x.count > y.count; });
  return out;
}

CallSpend SpendOf(const std::vector<LlmCallRow>& calls) {
  CallSpend s;
  for (const auto& c : calls) {
    ++s.calls;
    s.failed_calls += !c.ok;
    s.input_tokens += c.input_tokens;
    s.output_tokens += c.output_tokens;
    s.cost_usd += c.cost_usd;
    s.seconds += c.seconds;
  }
  return s;
}

std::string OutcomeLine(const RunSummary& s) {
  int total = 0;
  std::string parts;
  for (const char* name : kOutcomeOrder) {
    auto it = s.outcomes.find(name);
    if (it == s.outcomes.end() || it->second == 0) continue;
    total += it->second;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", it->second, name);
  }
  return fmt::format("attempts: {}{}{}\n", total, parts.empty() ? "" : ": ", parts);
}

std::string BestLabel(const RunData& run, const TaskSummary& t) {
  if (!t.best) return "-";
  const CandidateRow& c = run.attempts[*t.best].candidate;
  return c.label.empty() ? fmt::format("#{}", c.seq) : fmt::format("#{} {}", c.seq, c.label);
}

std::string TaskTable(const RunData& run, const RunSummary& s) {
  size_t width = 4;
  for (const auto& t : s.tasks) width = std::max(width, t.name.size());
  std::string out =
      fmt::format("{:<{}}  {:<10} {:>8} {:>6} {:>9} {:>10} {:>6}  {}\n", "task", width, "category",
                  "attempts", "passed", "speedup", "vs compile", "SOL%", "best kernel");
  for (const auto& t : s.tasks) {
    std::string sol = t.sol_percent ? fmt::format("{:.1f}", *t.sol_percent) : "-";
    out += fmt::format("{:<{}}  {:<10} {:>8} {:>6} {:>9} {:>10} {:>6}  {}\n", t.name, width,
                       t.category.empty() ? "-" : t.category, t.attempts, t.passed,
                       FormatSpeedup(t.speedup), FormatSpeedup(t.speedup_compile), sol,
                       BestLabel(run, t));
  }
  return out;
}

std::string SpendText(const CallSpend& s) {
  return fmt::format(
      "spend: {} LLM call(s) ({} failed), {} input + {} output tokens, ${:.4f}, {:.1f} s\n",
      s.calls, s.failed_calls, s.input_tokens, s.output_tokens, s.cost_usd, s.seconds);
}

// Each failing outcome with its count and its three most frequent reasons.
std::string FailureText(const RunSummary& s) {
  std::string out;
  for (const char* name : kOutcomeOrder) {
    auto it = s.outcomes.find(name);
    if (std::string(name) == "passed" || it == s.outcomes.end() || it->second == 0) continue;
    out += fmt::format("  {:<14} {:>5}\n", name, it->second);
    int shown = 0;
    for (const auto& r : s.reasons) {
      if (r.outcome != name) continue;
      if (shown++ == 3) break;
      out += fmt::format("  {:<14} {:>5}x {}\n", "", r.count, r.reason.empty() ? "-" : r.reason);
    }
  }
  return out.empty() ? "" : "failures:\n" + out;
}

}  // namespace

std::string FirstLine(std::string_view text, size_t max) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  text.remove_prefix(start);
  text = text.substr(0, text.find_first_of("\r\n"));
  if (text.size() <= max) return std::string(text);
  return std::string(Utf8Prefix(text, max)) + "...";  // never inside a character
}

std::string FormatSpeedup(const std::optional<double>& x) {
  return x ? fmt::format("{:.2f}x", *x) : "-";
}

std::string AttemptReason(const AttemptView& a) {
  if (a.evaluation && a.evaluation->state == "finished") return a.evaluation->reason;
  if (a.outcome == "llm_error") return a.call ? a.call->error : "";
  if (a.outcome != "no_code") return "";
  json x = ParseOrNull(a.candidate.extraction);
  for (const char* field : {"detail", "failure"})
    if (x.is_object() && x.contains(field) && x[field].is_string() &&
        !x[field].get<std::string>().empty())
      return x[field];
  return "no code in the reply";
}

RunSummary SummarizeRun(const RunData& run) {
  RunSummary s;
  s.tasks = TaskSummaries(run);
  for (const auto& a : run.attempts) ++s.outcomes[a.outcome];
  s.reasons = ReasonCounts(run);
  s.spend = SpendOf(run.calls);
  s.machine = MachineOf(run);
  s.model = ModelOf(run);
  s.optimize = run.run.kind == "optimize" || !run.calls.empty();
  return s;
}

std::string RunSummaryText(const RunData& run, const RunSummary& s) {
  const RunRow& r = run.run;
  std::string out = fmt::format("run {} ({}, {}){}\n", r.id, r.kind, r.status,
                                r.name.empty() ? "" : " " + r.name);
  out += fmt::format("created {}, updated {}, hone {}{}\n", r.created, r.updated, r.hone_version,
                     s.machine.empty() ? "" : ", machine: " + s.machine);
  if (!s.model.empty()) out += "model: " + s.model + "\n";
  out += OutcomeLine(s);
  out += "\n" + SuiteMetricsTable(run.metrics, BaselineWord(run));
  if (std::string note = MalformedTasksNote(MalformedTasksOf(run), run.metrics.all); !note.empty())
    out += note + "\n";
  out += "\nbest kernel per task:\n" + TaskTable(run, s);
  for (const auto& t : s.tasks) {
    IdeaTree tree = BuildIdeaTree(run, t.task_hash);
    if (tree.empty()) continue;
    out += "\n" + (s.tasks.size() > 1 ? t.name + ": " : std::string()) + IdeaTreeText(run, tree);
  }
  if (s.optimize) out += "\n" + SpendText(s.spend);
  if (std::string arms = ArmSummaryText(SummarizeArms(run)); !arms.empty()) out += arms;
  if (std::string f = FailureText(s); !f.empty()) out += "\n" + f;
  return out;
}

json RunSummaryJson(const RunData& run, const RunSummary& s) {
  const RunRow& r = run.run;
  json tasks = json::array();
  for (const auto& t : s.tasks) {
    json best = nullptr;
    if (t.best) {
      const AttemptView& a = run.attempts[*t.best];
      best = {{"candidate_id", a.candidate.id},
              {"seq", a.candidate.seq},
              {"label", a.candidate.label},
              {"kind", a.candidate.kind},
              {"speedup", JsonOrNull(a.evaluation->speedup)},
              {"speedup_compile", JsonOrNull(a.evaluation->speedup_compile)},
              {"sol_percent", JsonOrNull(a.evaluation->sol_percent)},
              {"cand_median_us", JsonOrNull(a.evaluation->cand_median_us)},
              {"ref_median_us", JsonOrNull(a.evaluation->ref_median_us)}};
    }
    IdeaTree tree = BuildIdeaTree(run, t.task_hash);
    tasks.push_back({{"task", t.name},
                     {"idea_tree", tree.empty() ? json(nullptr) : IdeaTreeJson(run, tree)},
                     {"task_hash", t.task_hash},
                     {"category", t.category},
                     {"attempts", t.attempts},
                     {"passed", t.passed},
                     {"speedup", JsonOrNull(t.speedup)},
                     {"speedup_compile", JsonOrNull(t.speedup_compile)},
                     {"sol_percent", JsonOrNull(t.sol_percent)},
                     {"best", best}});
  }
  json failures = json::array();
  for (const auto& f : s.reasons)
    failures.push_back({{"outcome", f.outcome}, {"reason", f.reason}, {"count", f.count}});
  json j = {{"run",
             {{"id", r.id},
              {"kind", r.kind},
              {"name", r.name},
              {"status", r.status},
              {"created", r.created},
              {"updated", r.updated},
              {"hone_version", r.hone_version},
              {"machine", s.machine},
              {"model", s.model},
              {"config", ParseOrNull(r.config)},
              {"summary", ParseOrNull(r.summary)}}},
            {"outcomes", s.outcomes},
            {"metrics", SuiteMetricsToJson(run.metrics)},
            {"tasks", tasks},
            {"failures", failures}};
  if (s.optimize)
    j["spend"] = {{"calls", s.spend.calls},
                  {"failed_calls", s.spend.failed_calls},
                  {"input_tokens", s.spend.input_tokens},
                  {"output_tokens", s.spend.output_tokens},
                  {"cost_usd", s.spend.cost_usd},
                  {"llm_seconds", s.spend.seconds}};
  if (auto arms = SummarizeArms(run); !arms.empty()) j["arms"] = ArmSummaryJson(arms);
  return j;
}

}  // namespace hone
