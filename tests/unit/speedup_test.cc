// When a speedup may be read as a gain: the ratio's interval excludes 1 and
// both sides met the precision target.
#include "measure/speedup.h"

#include <gtest/gtest.h>

#include <vector>

namespace hone {
namespace {

// n samples around `median`, spread +-`spread` (a fraction of it).
SampleSummary Around(double median, double spread, int n = 200) {
  std::vector<double> x;
  for (int i = 0; i < n; ++i) x.push_back(median * (1 + spread * ((i % 21) - 10) / 10.0));
  return Summarize(x);
}

TEST(SpeedupTest, AClearTightGainIsResolved) {
  SpeedupInterval s = ResolveSpeedup(Around(3e-3, 0.01), Around(1e-3, 0.01), 0.01);
  EXPECT_TRUE(s.resolved()) << s.unresolved;
  EXPECT_LT(s.low, 3.0);
  EXPECT_GT(s.high, 3.0);
  EXPECT_GT(s.low, 1.0);
}

TEST(SpeedupTest, AnIntervalThatIncludesOneIsNot) {
  // The case: a candidate whose 95% interval spans about 1.1 .. 10.5 ms.
  SampleSummary cand = Summarize(
      {0.9e-3, 1e-3, 1.1e-3, 1.5e-3, 2e-3, 3e-3, 3.1e-3, 5e-3, 8e-3, 10.5e-3, 12e-3, 14e-3});
  ASSERT_LT(cand.ci_low, 1.2e-3);
  ASSERT_GT(cand.ci_high, 10e-3);
  SpeedupInterval s = ResolveSpeedup(Around(9e-3, 0.01), cand, 0.01);
  EXPECT_FALSE(s.resolved());
  EXPECT_NE(s.unresolved.find("includes 1"), std::string::npos) << s.unresolved;
  EXPECT_NE(s.unresolved.find("candidate's relative standard error"), std::string::npos)
      << s.unresolved;
}

TEST(SpeedupTest, ANoisySideIsNotResolvedEvenWhenTheIntervalExcludesOne) {
  SpeedupInterval s = ResolveSpeedup(Around(10e-3, 0.3, 40), Around(1e-3, 0.01), 0.01);
  EXPECT_GT(s.low, 1.0);
  EXPECT_FALSE(s.resolved());
  EXPECT_NE(s.unresolved.find("baseline's relative standard error"), std::string::npos)
      << s.unresolved;
  EXPECT_EQ(s.unresolved.find("includes 1"), std::string::npos) << s.unresolved;
}

TEST(SpeedupTest, NoSamplesNoInterval) {
  EXPECT_FALSE(ResolveSpeedup(SampleSummary{}, Around(1e-3, 0.01), 0.01).resolved());
}

TEST(SpeedupTest, PairedRatiosResolveOnTheirOwnInterval) {
  SpeedupInterval s = ResolvePairedSpeedup(Around(1.5, 0.002, 40), 0.01);
  EXPECT_TRUE(s.resolved()) << s.unresolved;
  EXPECT_GT(s.low, 1.4);
  EXPECT_LT(s.high, 1.6);
  SpeedupInterval self = ResolvePairedSpeedup(Around(1.0, 0.002, 40), 0.01);
  EXPECT_NE(self.unresolved.find("includes 1"), std::string::npos) << self.unresolved;
  SpeedupInterval noisy = ResolvePairedSpeedup(Around(3.0, 0.3, 40), 0.01);
  EXPECT_NE(noisy.unresolved.find("paired ratio's relative standard error"), std::string::npos)
      << noisy.unresolved;
  EXPECT_FALSE(ResolvePairedSpeedup(SampleSummary{}, 0.01).resolved());
}

}  // namespace
}  // namespace hone
