#include "search/bandit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone {

double UcbScore(const BanditArm& arm, int total_pulls, double exploration) {
  if (arm.pulls <= 0) return std::numeric_limits<double>::infinity();
  // ln(1) = 0: with a single pull in all, exploration adds nothing yet.
  const double total = std::max(total_pulls, arm.pulls);
  return arm.value + exploration * std::sqrt(std::log(total) / arm.pulls);
}

int ChooseUcb(const std::vector<BanditArm>& arms, double exploration) {
  int total = 0;
  for (const BanditArm& a : arms) total += std::max(a.pulls, 0);
  int best = -1;
  double best_score = 0;
  for (size_t i = 0; i < arms.size(); ++i) {
    if (!arms[i].open) continue;
    double score = UcbScore(arms[i], total, exploration);
    if (best < 0 || score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

std::vector<double> ScaledByLargest(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values) largest = std::max(largest, v);
  std::vector<double> out(values.size(), 0.0);
  if (largest <= 0) return out;
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i] / largest;
  return out;
}

}  // namespace hone
