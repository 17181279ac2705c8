#include "report/jsonl_export.h"

#include <map>

#include "core/json_text.h"
#include "report/json_or_null.h"
#include "verify/profile_json.h"

namespace hone {
namespace {

using json = nlohmann::json;

json ParsedOr(const std::string& text, json otherwise) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? otherwise : j;
}

// The candidate id of each task's best passed attempt (highest speedup; the
// earliest on a tie; a passed one without timing when none was timed).
std::map<std::string, int64_t> BestPerTask(const RunData& run) {
  std::map<std::string, std::pair<double, int64_t>> best;
  for (const auto& a : run.attempts) {
    if (!a.passed()) continue;
    double s = a.evaluation && a.evaluation->speedup ? *a.evaluation->speedup : 0;
    auto it = best.find(a.candidate.task_hash);
    if (it == best.end() || s > it->second.first) best[a.candidate.task_hash] = {s, a.candidate.id};
  }
  std::map<std::string, int64_t> out;
  for (const auto& [task, b] : best) out[task] = b.second;
  return out;
}

json TimingsOf(const EvaluationRow& e) {
  json t = {{"candidate_median_us", JsonOrNull(e.cand_median_us)},
            {"candidate_ci95_us", e.cand_ci_low_us && e.cand_ci_high_us
                                      ? json({*e.cand_ci_low_us, *e.cand_ci_high_us})
                                      : json(nullptr)},
            {"baseline_median_us", JsonOrNull(e.ref_median_us)},
            {"reps", e.reps}};
  json samples = ParsedOr(e.samples, json::object());
  if (samples.contains("candidate_us")) t["candidate_samples_us"] = samples["candidate_us"];
  if (samples.contains("reference_us")) t["baseline_samples_us"] = samples["reference_us"];
  return t;
}

}  // namespace

std::optional<ExportOptions::Keep> ParseKeep(const std::string& name) {
  if (name == "all") return ExportOptions::Keep::kAll;
  if (name == "passed") return ExportOptions::Keep::kPassed;
  if (name == "best") return ExportOptions::Keep::kBestPerTask;
  return std::nullopt;
}

// The profiler's diagnosis and its summary metrics (docs/PROFILING.md),
// without the per-kernel detail that only the full verdict carries; null
// when the attempt was not profiled.
json ProfileOf(const json& verdict) {
  std::optional<ProfileReport> p = ProfileOfVerdict(verdict);
  if (!p) return nullptr;
  if (!p->ran()) return {{"not_run", p->not_run}};
  json summary = json::object();
  for (const auto& [name, value] : p->summary) summary[name] = value;
  return {{"tool", p->tool},
          {"diagnosis",
           {{"label", p->diagnosis.label},
            {"evidence", p->diagnosis.evidence},
            {"fix", p->diagnosis.fix}}},
          {"summary", summary}};
}

json AttemptRow(const RunData& run, const AttemptView& a, bool is_best, bool with_verdict) {
  const CandidateRow& c = a.candidate;
  json row = {{"run_id", run.run.id},
              {"run_kind", run.run.kind},
              {"task", a.task_name},
              {"task_hash", c.task_hash},
              {"category", a.category},
              {"attempt", c.seq},
              {"label", c.label},
              {"kind", c.kind},
              {"lineage", c.lineage},
              {"turn", c.turn},
              {"parents", c.parents},
              {"backend", c.backend},
              {"language", c.language},
              {"prompt", ParsedOr(c.prompt, json::object())},
              {"reply", c.reply},
              {"code", c.source ? json(*c.source) : json(nullptr)},
              {"extraction", ParsedOr(c.extraction, json::object())},
              {"status", a.outcome},
              {"passed", a.passed()},
              {"is_best", is_best}};
  if (a.evaluation) {
    const EvaluationRow& e = *a.evaluation;
    row["reason"] = e.reason;
    row["speedup"] = JsonOrNull(e.speedup);
    row["speedup_compile"] = JsonOrNull(e.speedup_compile);
    row["sol_percent"] = JsonOrNull(e.sol_percent);
    row["checks_failed"] = e.checks_failed;
    row["timings"] = TimingsOf(e);
    row["evaluation_tries"] = e.tries;
    row["profile"] = ProfileOf(ParsedOr(e.verdict, nullptr));
    if (with_verdict) row["verdict"] = ParsedOr(e.verdict, nullptr);
    // Attempts stored before schema version 6 have no language of their own.
    if (c.language.empty())
      row["language"] = ParsedOr(e.verdict, json::object()).value("language", "");
  } else {
    row["reason"] = a.call && !a.call->ok ? a.call->error : "";
    row["speedup"] = nullptr;
    row["speedup_compile"] = nullptr;
    row["sol_percent"] = nullptr;
  }
  if (a.call)
    row["llm"] = {{"provider", a.call->provider},
                  {"model", a.call->model},
                  {"sampling", ParsedOr(a.call->sampling, nlohmann::json::object())},
                  {"prompt_version", a.call->prompt_version},
                  {"ok", a.call->ok},
                  {"finish_reason", a.call->finish_reason},
                  {"input_tokens", a.call->input_tokens},
                  {"output_tokens", a.call->output_tokens},
                  {"cost_usd", a.call->cost_usd},
                  {"seconds", a.call->seconds}};
  return row;
}

std::vector<std::pair<const AttemptView*, bool>> KeptAttempts(const RunData& run,
                                                              const ExportOptions& options) {
  auto best = BestPerTask(run);
  std::vector<std::pair<const AttemptView*, bool>> out;
  for (const auto& a : run.attempts) {
    auto it = best.find(a.candidate.task_hash);
    bool is_best = it != best.end() && it->second == a.candidate.id;
    if (options.keep == ExportOptions::Keep::kPassed && !a.passed()) continue;
    if (options.keep == ExportOptions::Keep::kBestPerTask && !is_best) continue;
    out.emplace_back(&a, is_best);
  }
  return out;
}

int WriteJsonl(const RunData& run, const ExportOptions& options, std::ostream& out) {
  int rows = 0;
  for (const auto& [a, is_best] : KeptAttempts(run, options)) {
    out << JsonText(AttemptRow(run, *a, is_best, options.verdict)) << "\n";
    ++rows;
  }
  return rows;
}

}  // namespace hone
