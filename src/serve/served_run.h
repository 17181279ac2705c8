// Served evaluations in the run store (store/store.h), recorded the way
// `hone bench` records its units, so that `hone report` and `hone export`
// read a worker's evaluations like a bench run's.
//
// One run per worker process: kind "bench" (the store's schema knows
// "bench" and "optimize"), named "worker CONSUMER", its config saying it was
// served ({"served": true, ...}). Each job evaluated is one candidate of the
// run (label: the job id; kind "served") and one evaluation of it. Only
// verdicts are recorded: an infra error has none, and a job evaluated twice
// (a reclaimed lease) is two evaluations, as it was.
//
// Ownership: owns its Store (a SQLite connection; several workers may
// share the file: the store serialises writers). Thread-compatible.
// Failures of the store are Status values; the worker reports them and
// goes on serving (the queue's result is what the trainer reads).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "serve/eval_job.h"
#include "store/store.h"
#include "task/task.h"

namespace hone {

class ServedRun {
 public:
  // Opens (creating) the store and begins the run.
  static Result<std::unique_ptr<ServedRun>> Begin(const std::filesystem::path& store,
                                                  const std::string& consumer,
                                                  nlohmann::json config);
  ~ServedRun();  // marks the run finished
  ServedRun(const ServedRun&) = delete;
  ServedRun& operator=(const ServedRun&) = delete;

  // `problem`: the file or folder the task was loaded from.
  Status Record(const EvalJob& job, const Task& task, const std::filesystem::path& problem,
                const std::string& backend, const Verdict& verdict);
  int64_t run_id() const { return run_id_; }
  const std::filesystem::path& path() const { return store_->path(); }

 private:
  ServedRun(std::unique_ptr<Store> store, int64_t run_id)
      : store_(std::move(store)), run_id_(run_id) {}

  std::unique_ptr<Store> store_;
  int64_t run_id_ = 0;
  int seq_ = 0;
  std::set<std::string> tasks_;  // hashes already in the run
};

}  // namespace hone
