// The HTML report's tables and sections (report/html_report.h): the suite's
// metrics, the tasks, and per task its best kernel (timings, the
// profiler's diagnosis, its checks, its source), its idea tree and every
// attempt; the auto strategy's arms and the LLM spend. Each returns HTML,
// every stored text escaped (report/html_escape.h).
//
// Pure functions of a stored run; thread-safe; they do not fail (what a run
// lacks reads "-" or a note).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/arm_summary.h"
#include "report/bench_metrics.h"
#include "report/run_data.h"
#include "report/run_summary_text.h"

namespace hone {

// The suite's metrics, a column for all tasks and one per category; speedups
// are against `baseline` (BaselineWord), and torch.compile's beside them when
// the run has its times.
std::string MetricsHtml(const SuiteMetrics& m, const std::string& baseline);

// A row per task, linking to its section and its best kernel.
std::string TaskTableHtml(const RunData& run, const RunSummary& s);

// Task `i`'s section: its best kernel, its idea tree and every attempt.
std::string TaskSectionHtml(const RunData& run, const RunSummary& s, size_t i);

// The auto strategy's arms: calls, passes, gain and spend of each.
std::string ArmsHtml(const std::vector<ArmSummary>& arms);

// The LLM calls' count, tokens, cost and waiting time, in one line.
std::string SpendHtml(const CallSpend& s);

}  // namespace hone
