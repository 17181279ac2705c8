#include "measure/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hone {

SampleSummary Summarize(std::vector<double> x) {
  SampleSummary s;
  s.count = static_cast<int>(x.size());
  if (x.empty()) return s;
  std::sort(x.begin(), x.end());
  size_t n = x.size();
  s.min = x.front();
  s.max = x.back();
  s.median = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  s.mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double v : x) var += (v - s.mean) * (v - s.mean);
  s.stddev = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0;
  // Ranks n/2 -+ 1.96 sqrt(n)/2 bound the median with ~95% confidence
  // whatever the distribution (binomial, normal approximation).
  double half = 1.96 * std::sqrt(static_cast<double>(n)) / 2;
  auto rank = [&](double r) {
    return x[static_cast<size_t>(std::clamp(r, 0.0, static_cast<double>(n - 1)))];
  };
  s.ci_low = rank(std::floor(n / 2.0 - half));
  s.ci_high = rank(std::ceil(n / 2.0 + half) - 1);
  if (n < 3 || s.median <= 0) {
    s.rse = INFINITY;
  } else {
    s.rse = (s.ci_high - s.ci_low) / (2 * 1.96) / s.median;
  }
  return s;
}

}  // namespace hone
