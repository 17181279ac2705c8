#include "verify/float64_budget.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

// Seeds in the verify stage's order: all distributions for seed 1, then 2...
std::vector<bool> Order(Float64Budget& b, int seeds, int dists) {
  std::vector<bool> got;
  for (int s = 0; s < seeds; ++s)
    for (int d = 0; d < dists; ++d) got.push_back(b.Take(d));
  return got;
}

TEST(Float64BudgetTest, SmallSetsAreAllChecked) {
  Float64Budget b(3, 4096);
  EXPECT_EQ(Order(b, 3, 3), std::vector<bool>(9, true));
  EXPECT_EQ(b.taken(), 9);
  EXPECT_EQ(b.skipped(), 0);
}

TEST(Float64BudgetTest, AFullSizeSetIsCheckedOncePerDistribution) {
  Float64Budget b(3, int64_t{1} << 31);
  EXPECT_EQ(Order(b, 3, 3),
            (std::vector<bool>{true, true, true, false, false, false, false, false, false}));
  EXPECT_EQ(b.taken(), 3);
  EXPECT_EQ(b.skipped(), 6);
}

TEST(Float64BudgetTest, SetsUnderTheBudgetAddUpToIt) {
  // Two sets of half the budget each fill it: the third seed is skipped.
  Float64Budget b(2, kFloat64ElementsPerDistribution / 2);
  EXPECT_EQ(Order(b, 3, 2), (std::vector<bool>{true, true, true, true, false, false}));
}

TEST(Float64BudgetTest, NoFloatingOutputsSkipsNothing) {
  Float64Budget b(3, 0);
  EXPECT_EQ(Order(b, 3, 3), std::vector<bool>(9, true));
  EXPECT_EQ(b.skipped(), 0);
}

}  // namespace
}  // namespace hone
