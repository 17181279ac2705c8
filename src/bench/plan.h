// What a bench evaluates, planned before anything is built: its tasks,
// loaded and recorded in the run store in a fixed order, and one unit of
// work per candidate on a task. A suite on disk (task/suite.h) gives a
// task's solution files; a stored run gives the candidates it kept, written
// out as files. The order never changes between a run and its --resume,
// which the scheduler (bench/scheduler.h) relies on to match units.
//
// A task that cannot be loaded is no error: it is left without a task,
// counted (skipped when it cannot run here, malformed otherwise) and said
// to the listener. Errors are the store's, the suite's (no tasks) or a
// stored run's. One thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "format/task_format.h"
#include "lang/language.h"
#include "store/store.h"
#include "task/suite.h"
#include "task/task.h"

namespace hone {

class BenchListener;

// One task of the bench, loaded.
struct BenchTask {
  std::filesystem::path path;
  std::string category;
  std::optional<Task> task;  // absent: skipped or malformed (said to the listener)
};

// One unit of work: a candidate on a task.
struct BenchUnit {
  size_t task = 0;  // index into BenchPlan::tasks
  std::filesystem::path candidate;
  std::string label;
  std::set<std::string> allow;  // lint rules the candidate's format allows it
  int64_t candidate_id = 0;     // in the store, once recorded (bench/scheduler.h)
  std::string work_key;
};

struct BenchPlan {
  std::vector<BenchTask> tasks;
  std::vector<BenchUnit> units;
  int malformed = 0, skipped = 0;
};

// Loads one task for the bench's backend (a PyTorch problem on its device).
// A problem that cannot run here is Status::Unavailable.
using BenchTaskLoader = std::function<Result<Task>(const std::filesystem::path&)>;

// The tasks and solution files of the suite at `suite`, found through
// `formats` (the entry point's registry: BuiltInFormats(), or a test's),
// recorded under `run_id`.
Result<BenchPlan> PlanSuite(const FormatRegistry& formats, const std::filesystem::path& suite,
                            const SuiteLayout& layout, const BenchTaskLoader& load, Store& store,
                            int64_t run_id, BenchListener& listener);

// The candidates of stored run `source_run`, written as files beside the
// store (sources/), on the tasks they were made for, recorded under `run_id`.
// A stored candidate's language is looked up in `languages`.
Result<BenchPlan> PlanFromRun(const LanguageRegistry& languages, int64_t source_run,
                              const BenchTaskLoader& load, Store& store, int64_t run_id,
                              BenchListener& listener);

}  // namespace hone
