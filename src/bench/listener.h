// What a bench says as it goes, for whoever shows it (the CLI: a progress
// line, stderr, the table on stdout, the log). Planning, prebuilding and
// scheduling (bench/plan.h, bench/prebuild.h, bench/scheduler.h) call it one
// call at a time: planning and prebuilding on the bench's thread, the
// evaluations on their lanes' threads (bench/lanes.h), serialised by the
// scheduler, so a listener needs no lock of its own. Every method is
// optional and returns nothing, so a listener cannot change what is
// evaluated.
#pragma once

#include <cstddef>
#include <string>

#include "bench/plan.h"
#include "verify/verdict.h"

namespace hone {

class BenchListener {
 public:
  virtual ~BenchListener() = default;
  // A progress line, replaced by the next.
  virtual void Show(const std::string& /*line*/) {}
  // A task that is left out of the bench: skipped (it cannot run here),
  // malformed, or failing as a whole (its reference). Worth keeping.
  virtual void TaskProblem(const std::string& /*message*/) {}
  // A remark on a stored run being planned: one of its tasks is gone or
  // changed since.
  virtual void PlanWarning(const std::string& /*message*/) {}
  // A resumed bench: `done` of `total` units have results already; `todo`
  // are left.
  virtual void Resumed(int /*done*/, int /*total*/, size_t /*todo*/) {}
  // The evaluations of units start (not called when none is left).
  virtual void Evaluating() {}
  // A unit evaluated now, with its verdict.
  virtual void UnitDone(const BenchUnit& /*unit*/, const Verdict& /*verdict*/) {}
  // A lane (its device, `lane`) failed and takes no more units; the other
  // lanes go on with its unit. `message` names the unit and the error.
  virtual void LaneRetired(const std::string& /*lane*/, const std::string& /*message*/) {}
};

}  // namespace hone
