// What a stored run comes to, for people: the best kernel per task, the
// attempts by outcome, the most frequent failure reasons and the LLM spend,
// and their renderings as a terminal summary and as JSON (`hone report`).
// The HTML report (report/html_report.h) draws from the same summary.
// Pure functions of a RunData; no I/O. docs/REPORT.md describes the output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/run_data.h"

namespace hone {

// The outcomes an attempt can have (AttemptView::outcome), in the order
// reports list them; failures are every one but "passed".
inline constexpr const char* kOutcomeOrder[] = {
    "passed",   "incorrect", "compile_error", "runtime_error", "timeout",
    "rejected", "llm_error", "no_code",       "pending",       "not_evaluated"};

// One task of the run's suite and its attempts. The best speedups are the
// highest over the task's passed attempts (as in bench_metrics.h); `best`
// is the passed attempt with the highest speedup over eager (the first
// passed one when none was timed), an index into RunData::attempts.
struct TaskSummary {
  std::string task_hash, name, category;
  int attempts = 0, passed = 0;
  std::optional<size_t> best;
  std::optional<double> speedup, speedup_compile, sol_percent;
};

// Failed attempts with the same outcome and the same first line of reason.
struct ReasonCount {
  std::string outcome, reason;
  int count = 0;
};

// What a run's LLM calls cost, as the store recorded them (search/budget.h's
// Spend is what a search counts against its budget).
struct CallSpend {
  int calls = 0, failed_calls = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0, seconds = 0;
};

struct RunSummary {
  std::vector<TaskSummary> tasks;       // the suite, in order
  std::map<std::string, int> outcomes;  // attempts by outcome
  std::vector<ReasonCount> reasons;     // most frequent first
  CallSpend spend;
  std::string machine;  // from the run's config or summary, else a verdict; may be empty
  // The model(s) that wrote the candidates, with the sampling settings and
  // prompt version of their first call: "openai:gpt-4.1 (temperature 0.7,
  // max_tokens 8192; prompts 3f2a9c1b)"; else the run's configured model.
  std::string model;
  bool optimize = false;  // an LLM run: kind "optimize", or any LLM call
};

RunSummary SummarizeRun(const RunData& run);

// Why an attempt failed, in full: the verdict's reason, the LLM call's
// error, or why no code was extracted. Empty for a passed or pending one.
std::string AttemptReason(const AttemptView& a);
// The first line of `text`, cut to `max` bytes (with "..." when cut).
std::string FirstLine(std::string_view text, size_t max = 100);
// "1.23x", or "-" when absent.
std::string FormatSpeedup(const std::optional<double>& x);

// The terminal summary: the run, outcomes, the metrics table, the best
// kernel per task, the spend (LLM runs) and the failure reasons.
std::string RunSummaryText(const RunData& run, const RunSummary& summary);
// The same as one JSON document: run, outcomes, metrics
// (SuiteMetricsToJson), tasks (with their best kernel), spend, failures.
nlohmann::json RunSummaryJson(const RunData& run, const RunSummary& summary);

}  // namespace hone
