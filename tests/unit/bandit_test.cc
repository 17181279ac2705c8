// UCB1 as both bandits of the search use it: untried first, value then
// exploration, ties to the first, closed arms never.
#include "search/bandit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

TEST(BanditTest, UntriedArmsComeFirstInOrder) {
  std::vector<BanditArm> arms = {{1.0, 3, true}, {0.0, 0, true}, {0.0, 0, true}};
  EXPECT_EQ(ChooseUcb(arms, 0.5), 1);
  arms[1].pulls = 1;
  EXPECT_EQ(ChooseUcb(arms, 0.5), 2);
}

TEST(BanditTest, TheHigherValueWinsAtEqualPulls) {
  std::vector<BanditArm> arms = {{0.2, 2, true}, {0.9, 2, true}, {0.5, 2, true}};
  EXPECT_EQ(ChooseUcb(arms, 0.5), 1);
}

TEST(BanditTest, ExplorationLetsAnArmPulledLessCatchUp) {
  // 0.8 + 0.5 sqrt(ln 21 / 1) = 1.67 beats 1.0 + 0.5 sqrt(ln 21 / 20) = 1.20.
  std::vector<BanditArm> arms = {{1.0, 20, true}, {0.8, 1, true}};
  EXPECT_EQ(ChooseUcb(arms, 0.5), 1);
  EXPECT_EQ(ChooseUcb(arms, 0.0), 0) << "without exploration the value alone decides";
}

TEST(BanditTest, TiesGoToTheFirstAndClosedArmsAreSkipped) {
  std::vector<BanditArm> arms = {{0.5, 2, true}, {0.5, 2, true}};
  EXPECT_EQ(ChooseUcb(arms, 0.5), 0);
  arms[0].open = false;
  EXPECT_EQ(ChooseUcb(arms, 0.5), 1);
  arms[1].open = false;
  EXPECT_EQ(ChooseUcb(arms, 0.5), -1);
  EXPECT_EQ(ChooseUcb({}, 0.5), -1);
}

TEST(BanditTest, ScoreIsValuePlusExploration) {
  EXPECT_TRUE(std::isinf(UcbScore({0.3, 0, true}, 10, 0.5)));
  EXPECT_DOUBLE_EQ(UcbScore({0.3, 4, true}, 16, 0.5), 0.3 + 0.5 * std::sqrt(std::log(16.0) / 4));
}

TEST(BanditTest, ScaledByLargest) {
  EXPECT_EQ(ScaledByLargest({1.0, 4.0, 2.0}), (std::vector<double>{0.25, 1.0, 0.5}));
  EXPECT_EQ(ScaledByLargest({0.0, 0.0}), (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(ScaledByLargest({}).empty());
}

}  // namespace
}  // namespace hone
