// Everything a report or an export needs about one stored run, read in one
// go from the store: the run, its suite of tasks, every attempt with its
// latest evaluation and LLM call, and the suite's metrics. A plain value;
// LoadRunData reads a consistent snapshot while another process may be
// writing the run (WAL readers never wait).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "report/bench_metrics.h"
#include "store/records.h"
#include "store/store.h"

namespace hone {

struct AttemptView {
  CandidateRow candidate;
  std::optional<EvaluationRow> evaluation;  // the latest finished or started one
  std::optional<LlmCallRow> call;           // the LLM call that produced it (optimize runs)
  std::string task_name, category;
  // The verdict status when finished; otherwise "pending" (evaluation begun,
  // not finished), "llm_error" (the call failed), "no_code" (nothing could be
  // extracted from the reply) or "not_evaluated".
  std::string outcome;
  double at_seconds = 0;  // when it was done, in seconds since the run was created
  bool passed() const { return outcome == "passed"; }
};

struct RunData {
  RunRow run;
  std::vector<RunTaskRow> tasks;      // the suite, in order
  std::vector<AttemptView> attempts;  // in the order they were stored
  // Calls that asked for no code (store/candidate_kind.h: the tree
  // strategy's calls for ideas), in the order stored: not candidates, so not
  // among `attempts` nor in any metric; their cost is in `calls`. Outcome
  // "answered" or "llm_error".
  std::vector<AttemptView> planning;
  std::vector<LlmCallRow> calls;
  SuiteMetrics metrics;
};

// Errors: no such run (kNotFound), a store error.
Result<RunData> LoadRunData(Store& store, int64_t run_id);

// Seconds from `from` to `to`, both ISO 8601 UTC as the store writes them
// ("2026-11-22T07:45:01.123Z"); 0 when either does not parse.
double SecondsBetween(const std::string& from, const std::string& to);

// The metrics' inputs from a run's attempts and tasks.
std::vector<SuiteTask> SuiteTasksOf(const RunData& run);
std::vector<TaskOutcome> OutcomesOf(const RunData& run);

// What a run's speedups are measured against, in one word for its tables
// and plots: "eager" (PyTorch-defined problems: the eager Model), "reference"
// (native tasks: the task's reference) or "baseline" (both kinds in one
// run), read from the run's task paths.
std::string BaselineWord(const RunData& run);

// The tasks of a bench's suite that did not load (its stored summary's
// "malformed_tasks"); 0 for any other run, or a summary not written yet.
int MalformedTasksOf(const RunData& run);

}  // namespace hone
