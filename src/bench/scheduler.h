// Evaluates a bench's plan (bench/plan.h) through the run store, so that a
// bench killed at any point (kill -9 included) goes on with --resume: every
// unit is recorded with its work key before anything runs; a unit the store
// has a result for is counted, never evaluated again; a unit cut off
// mid-evaluation is evaluated once more. Before the evaluations, the builds
// they need are made on all cores (bench/prebuild.h) and, for ModelNew
// candidates, warm sandboxes are started. A new best passed candidate of a
// task gets compute-sanitizer, where the backend has it.
//
// The units are evaluated over one or more lanes (bench/lanes.h): one
// evaluator per lane, each on its own device, one evaluation at a time per
// lane, all taking units from the plan's one list and recording them in the
// one store exactly as a single lane does, so --resume neither redoes a
// finished unit nor loses one whichever lane ran it. With one lane it all
// happens on the calling thread. The verdict's machine names the device
// that evaluated the unit; where lanes share a device (CPU lanes), timed
// verdicts get a note saying that their timings interfered.
//
// A task whose evaluation fails as a whole (its reference fails, it does
// not fit in memory) is said to the listener and its other units left
// pending. Any other error retires the lane it happened on (its unit goes
// to another lane, and the listener hears of it); once every lane is
// retired, Run returns the first such error, naming the unit.
//
// Threads: the lanes' threads call the listener, the tally and the store,
// one listener or tally call at a time (the scheduler serialises them); the
// Store is itself thread-safe (one connection behind a mutex, store/store.h:
// evaluations take seconds, a commit milliseconds, so one connection is no
// bottleneck). Borrows everything: the lanes' evaluators and backends, the
// store, the listener and the tally outlive Run.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
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

// One lane: an evaluator and the backend it evaluates on, opened on one
// device. Lane 0 also prebuilds (its builder, its oracle's extensions).
struct BenchLane {
  std::string name;  // for messages: "cuda:1", "cpu#2"
  const Backend* backend = nullptr;
  Evaluator* evaluator = nullptr;
  // The lane's own copy of a planned task, where the plan's does not serve
  // it: a PyTorch task is loaded by the oracle of the lane's device (the
  // one its evaluator was given). Empty: the plan's tasks serve this lane.
  BenchTaskLoader reload;
};

// What each lane did, for the run's summary.
struct BenchLaneStats {
  std::string name;
  MachineInfo machine;
  int evaluated = 0;    // units it finished
  std::string failure;  // why it was retired; empty if it was not
};

class BenchScheduler {
 public:
  // At least one lane (a programmer error otherwise).
  BenchScheduler(BenchRunInfo run, std::vector<BenchLane> lanes, const EvalOptions& options,
                 BenchListener& listener, BenchTally& tally);
  // One lane: `evaluator` on `backend`.
  BenchScheduler(BenchRunInfo run, const Backend& backend, Evaluator& evaluator,
                 const EvalOptions& options, BenchListener& listener, BenchTally& tally);

  // Records, prebuilds and evaluates the units of `plan`; a task failing as
  // a whole counts in plan.malformed.
  Status Run(BenchPlan& plan);

  double prebuild_seconds() const { return prebuild_seconds_; }
  // What the sandbox could not put in force on this machine, as the first
  // verdict that said so put it.
  const std::string& sandbox_missing() const { return sandbox_missing_; }
  const std::vector<BenchLaneStats>& lane_stats() const { return stats_; }

 private:
  // Records every unit (a resumed run's must be those it had) and returns
  // those the store has no result for; the others are counted.
  Result<std::vector<const BenchUnit*>> Record(BenchPlan& plan);
  Status RecordUnit(const Task& task, BenchUnit& u, int seq,
                    const std::map<int, CandidateRow>& stored);
  // Warm sandboxes for ModelNew candidates, then every build they need.
  void Prepare(const BenchPlan& plan, const std::vector<const BenchUnit*>& todo);
  // Lane `lane`'s turn at one unit: Ok when the unit is done or its task is
  // at fault (said and counted); any other Status retires the lane.
  Status LaneUnit(size_t lane, BenchPlan& plan, const BenchUnit& u);
  // The task lane `lane` evaluates `u`'s task as (its own copy, or the plan's).
  Result<const Task*> LaneTask(size_t lane, const BenchPlan& plan, const BenchUnit& u);
  // Evaluates one unit on a lane unless the store already has its result.
  Status RunUnit(size_t lane, const Task& task, const BenchUnit& u);
  Status SanitizeIfBest(size_t lane, const Task& task, const BenchUnit& u, Verdict& v);
  void NoteSharedDevice(size_t lane, Verdict& v) const;
  void Show(size_t lane, const std::string& what);
  void Count(size_t lane, const BenchUnit& u, const Verdict& v, double seconds);

  BenchRunInfo run_;
  std::vector<BenchLane> lanes_;
  const EvalOptions& options_;
  BenchListener& listener_;
  BenchTally& tally_;
  double prebuild_seconds_ = 0;
  // Each lane's own copies of planned tasks, by task index; a lane touches
  // only its own map.
  std::vector<std::map<size_t, Task>> lane_tasks_;
  // Shared by the lanes, under mu_.
  std::mutex mu_;
  std::map<std::string, double> best_by_task_;  // sanitized bests
  std::set<size_t> broken_;                     // tasks whose evaluation failed as a whole
  std::string sandbox_missing_;
  std::vector<BenchLaneStats> stats_;
};

}  // namespace hone
