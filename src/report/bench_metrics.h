// KernelBench's metrics over a suite's results: correctness rate, fast_p
// against eager and against torch.compile, geometric-mean speedup, pass@k
// (the unbiased estimator) and the speed-of-light distribution, for the
// whole suite and per category (level). docs/BENCH.md states the
// definitions. Pure functions of plain values; no I/O.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hone {

// A task of the suite. `key` joins it to its outcomes (the task's hash).
struct SuiteTask {
  std::string key, name, category;
};

// One attempt on one task: a finished evaluation, or an attempt that never
// got one (no code, LLM error: passed = false, no speedups).
struct TaskOutcome {
  std::string task;  // SuiteTask::key
  bool passed = false;
  std::optional<double> speedup;          // over eager / the native reference
  std::optional<double> speedup_compile;  // over torch.compile, when it was timed
  std::optional<double> sol_percent;
  // False for an evaluation that decided nothing (status busy: the GPU was
  // shared): not an attempt, counted apart.
  bool decided = true;
};

// fast_p: the share of the suite's tasks with a correct kernel strictly
// faster than p times the baseline. A task with no correct kernel, or none
// timed, counts as failed. `compile` is absent when no outcome in the set
// has a torch.compile time (native tasks; torch without compile).
struct FastP {
  double p = 0;
  double eager = 0;
  std::optional<double> compile;
};

struct PassAtK {
  int k = 0;
  double value = 0;  // mean over the suite's tasks; a task with no attempts counts 0
};

struct Quantiles {
  int n = 0;
  double min = 0, p25 = 0, median = 0, p75 = 0, max = 0;
};

struct BenchMetrics {
  int tasks = 0;            // in the suite
  int tasks_attempted = 0;  // with at least one outcome
  int tasks_correct = 0;    // with at least one passed outcome
  int attempts = 0, attempts_passed = 0;
  int not_decided = 0;               // evaluations that decided nothing (busy), not attempts
  double correctness_rate = 0;       // attempts_passed / attempts
  double task_correctness_rate = 0;  // tasks_correct / tasks
  std::vector<FastP> fast_p;         // p in kFastPThresholds, best kernel per task
  // Over the tasks with a correct, timed kernel: the best one's speedup.
  std::optional<double> geomean_speedup, geomean_speedup_compile;
  int tasks_timed = 0;  // how many tasks the geometric mean is over
  // Over every task of the suite, a task without a correct kernel counting
  // as 1x (the baseline is what a user would run instead).
  double geomean_speedup_all_tasks = 1;
  std::vector<PassAtK> pass_at_k;        // k up to the fewest attempts on an attempted task
  std::optional<Quantiles> sol_percent;  // the best kernel per task's SOL %
  // False when tasks were solved but no kernel was timed (`--no-time`): the
  // speed metrics (fast_p, the geomeans, SOL %) are then unknown, shown as
  // "not timed" and null in JSON rather than as 0% and 1x.
  bool timed = true;

  // Whether some result had a torch.compile time (a PyTorch task on a torch
  // that compiles): only then do tables show compile rows and columns.
  bool HasCompileTimes() const { return !fast_p.empty() && fast_p.front().compile.has_value(); }
};

struct SuiteMetrics {
  BenchMetrics all;
  std::map<std::string, BenchMetrics> by_category;  // only when there are two or more
};

inline constexpr double kFastPThresholds[] = {0, 0.5, 0.8, 1, 1.5, 2};

// The unbiased pass@k estimator for n samples with c correct (Chen et al.
// 2021): 1 - C(n-c, k) / C(n, k). Requires 0 <= c <= n and 1 <= k <= n.
double PassAtKEstimate(int n, int c, int k);

BenchMetrics ComputeMetrics(const std::vector<SuiteTask>& tasks,
                            const std::vector<TaskOutcome>& outcomes);
SuiteMetrics ComputeSuiteMetrics(const std::vector<SuiteTask>& tasks,
                                 const std::vector<TaskOutcome>& outcomes);

nlohmann::json MetricsToJson(const BenchMetrics& m);
nlohmann::json SuiteMetricsToJson(const SuiteMetrics& m);
// A terminal table: one column per category (and "all"), one row per metric.
// `baseline` names what the speedups are against in the fast_p rows
// ("eager", "reference": report/run_summary_text.h's BaselineWord).
std::string SuiteMetricsTable(const SuiteMetrics& m, const std::string& baseline = "eager");

// The figures are over the tasks that loaded: where `malformed` tasks of
// the suite did not (a bench names them as it plans), a line that puts them
// back into "tasks solved" ("note: 1 malformed task is not in these figures:
// 2 of the 3 tasks listed solved (67%)"); empty when there are none.
std::string MalformedTasksNote(int malformed, const BenchMetrics& all);

}  // namespace hone
