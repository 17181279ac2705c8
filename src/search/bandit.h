// The upper confidence bound (UCB1) that both bandits of the search use: the
// tree strategy picks the node to expand (search/tree_strategy.h), the auto
// strategy the strategy that gets the next LLM call
// (search/auto_strategy.h). Deterministic: no random draws, ties go to the
// first option, so a run replayed from its stored results (resume) decides
// the same. Pure functions.
#pragma once

#include <vector>

namespace hone {

// One option of a bandit: what it has earned, and how often it was tried.
struct BanditArm {
  double value = 0;  // the estimate to exploit, scaled to [0, 1] by the caller
  int pulls = 0;     // times tried; 0: untried
  bool open = true;  // false: may not be chosen now
};

// value + exploration * sqrt(ln(total_pulls) / pulls); an untried arm scores
// +infinity (every option is tried once before any is tried twice).
double UcbScore(const BanditArm& arm, int total_pulls, double exploration);

// The open arm with the highest UcbScore (the first of equals), or -1 when
// none is open. `total_pulls` is at least the sum of every arm's pulls.
int ChooseUcb(const std::vector<BanditArm>& arms, double exploration);

// `values` scaled by their largest: each in [0, 1] when all are
// non-negative; all 0 when the largest is not positive.
std::vector<double> ScaledByLargest(const std::vector<double>& values);

}  // namespace hone
