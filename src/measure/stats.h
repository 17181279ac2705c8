// Statistics over timing samples: median with a distribution-free
// confidence interval (order statistics), and the relative standard error
// of the median that the adaptive timer drives below its target.
#pragma once

#include <vector>

namespace hone {

struct SampleSummary {
  int count = 0;
  double median = 0;
  double ci_low = 0, ci_high = 0;  // 95% interval for the median
  double mean = 0, stddev = 0, min = 0, max = 0;
  double rse = 0;  // standard error of the median over the median
  bool operator==(const SampleSummary&) const = default;
};

SampleSummary Summarize(std::vector<double> samples);

}  // namespace hone
