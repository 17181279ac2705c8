// A bench's running counts, for its progress line and its summary: units
// done and passed, the best speedup, and where the time of the units
// evaluated now went (with an estimate of what is left). A plain value; the
// scheduler's lanes update it one at a time (bench/scheduler.h).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace hone {

struct BenchTally {
  int done = 0, passed = 0, total = 0;
  int fresh = 0;  // evaluated by this invocation (not read back from the store)
  int lanes = 1;  // evaluating at once (bench/lanes.h): the ETA divides by it
  double best = 0;
  double fresh_seconds = 0;
  // Where the evaluated-now units' time went: stages summed over
  // evaluations, and the part spent inside hone_forward (both sides).
  std::map<std::string, double> stage_seconds;
  double kernel_seconds = 0;

  // "[3/8 done, 2 passed, best 1.52x, ETA 4 min] what".
  std::string Line(const std::string& what) const;
  // One unit (or searched task) done with `status`; its speedup when passed.
  void Count(const std::string& status, std::optional<double> speedup);
};

// "45 s", "12 min", "3.5 h".
std::string FormatEta(double seconds);

}  // namespace hone
