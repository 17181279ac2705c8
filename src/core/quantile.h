// The q-quantile of a sample, interpolated linearly between the two nearest
// order statistics (q = 0.5 is the median; an even count averages the two
// middle values). Pure; 0 for an empty sample.
#pragma once

#include <vector>

namespace hone {

double Quantile(std::vector<double> values, double q);
// The same for values already in ascending order (no copy, no sort).
double QuantileOfSorted(const std::vector<double>& sorted, double q);
// The nearest order statistic instead (a value of the sample, never between
// two): what the device-sharing rule's probes are judged by.
double NearestRankQuantile(std::vector<double> values, double q);

}  // namespace hone
