// Evaluates a bench's plan (bench/plan.h), one unit at a time on one
// evaluator, through the run store so that a bench killed at any point
// (kill -9 included) goes on with --resume: every unit is recorded with its
// work key before anything runs; a unit the store has a result for is
// counted, never evaluated again; a unit cut off mid-evaluation is
// evaluated once more. Before the evaluations, the builds they need are
// made on all cores (bench/prebuild.h) and, for ModelNew candidates, warm
// sandboxes are started. A new best passed candidate of a task gets
// compute-sanitizer, where the backend has it.
//
// A task whose evaluation fails as a whole (its reference fails, it does
// not fit in memory) is said to the listener and its other units left
// pending; any other error ends the run as a Status naming the unit.
// Borrows everything; one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/listener.h"
#include "bench/plan.h"
#include "bench/tally.h"
#include "run/backend.h"
#include "run/evaluator.h"
#include "store/store.h"

namespace hone {

// The run the units belong to.
struct BenchRunInfo {
  Store* store = nullptr;
  int64_t run_id = 0;
  bool resumed = false;       // the store may hold units of this run already
  std::string options_hash;   // the evaluation options, in the store's work keys
  bool sanitize_best = true;  // compute-sanitizer on each task's new best
};

class BenchScheduler {
 public:
  BenchScheduler(BenchRunInfo run, const Backend& backend, Evaluator& evaluator,
                 const EvalOptions& options, BenchListener& listener, BenchTally& tally);

  // Records, prebuilds and evaluates the units of `plan`; a task failing as
  // a whole counts in plan.malformed.
  Status Run(BenchPlan& plan);

  double prebuild_seconds() const { return prebuild_seconds_; }
  // What the sandbox could not put in force on this machine, as the first
  // verdict that said so put it.
  const std::string& sandbox_missing() const { return sandbox_missing_; }

 private:
  // Records every unit (a resumed run's must be those it had) and returns
  // those the store has no result for; the others are counted.
  Result<std::vector<const BenchUnit*>> Record(BenchPlan& plan);
  Status RecordUnit(const Task& task, BenchUnit& u, int seq,
                    const std::map<int, CandidateRow>& stored);
  // Warm sandboxes for ModelNew candidates, then every build they need.
  void Prepare(const BenchPlan& plan, const std::vector<const BenchUnit*>& todo);
  // Evaluates one unit unless the store already has its result.
  Status RunUnit(const Task& task, const BenchUnit& u);
  Status SanitizeIfBest(const Task& task, const BenchUnit& u, Verdict& v);
  void Count(const Verdict& v, double seconds);

  BenchRunInfo run_;
  const Backend& backend_;
  Evaluator& evaluator_;
  const EvalOptions& options_;
  BenchListener& listener_;
  BenchTally& tally_;
  std::map<std::string, double> best_by_task_;  // sanitized bests
  double prebuild_seconds_ = 0;
  std::string sandbox_missing_;
};

}  // namespace hone
