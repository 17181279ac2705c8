// Whether a measured speedup is resolved, that is, told apart from 1 by the
// measurements behind it: the 95% interval of the ratio of medians (the
// conservative one, from both medians' order-statistic intervals) must
// exclude 1, and both sides' relative standard errors must meet the timing
// target. A speedup that is not resolved is reported with its reason; a
// person or a model must not read it as a gain or a loss. Pure functions.
#pragma once

#include <string>

#include "measure/stats.h"

namespace hone {

struct SpeedupInterval {
  double low = 0, high = 0;  // 95% interval of baseline / candidate
  std::string unresolved;    // why it is not resolved; empty when it is
  bool resolved() const { return unresolved.empty(); }
};

// `baseline` and `candidate` summarise seconds per call; `target_rse` is the
// timer's precision target (0.01 for 1%).
SpeedupInterval ResolveSpeedup(const SampleSummary& baseline, const SampleSummary& candidate,
                               double target_rse);

// The same for a speedup taken as the median of per-repetition ratios
// (InterleavedTimer::PairedRatios, baseline over candidate): their median's
// 95% interval must exclude 1 and its relative standard error meet the target.
SpeedupInterval ResolvePairedSpeedup(const SampleSummary& ratios, double target_rse);

}  // namespace hone
