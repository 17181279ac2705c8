// tune/parts.h: how the verdicts of one candidate on each part of a problem
// become the one verdict a search scores.
#include "tune/parts.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

Verdict Passed(double speedup, double compile) {
  Verdict v;
  v.status = VerdictStatus::kPassed;
  v.reason = "correct on 1 shape case(s)";
  v.timing.speedup = speedup;
  v.timing.speedup_compile = compile;
  v.timing.speedup_low = speedup * 0.9;
  v.timing.speedup_high = speedup * 1.1;
  v.checks.push_back({{CheckKind::kCorrect}, "seed=1", true, ""});
  return v;
}

TEST(PartsTest, EveryPartPassedScoresTheGeometricMeanOfTheSpeedups) {
  Verdict v = CombinePartVerdicts({{"n=3", Passed(2.0, 1.0)}, {"n=4097", Passed(8.0, 4.0)}}, 2);
  EXPECT_EQ(v.status, VerdictStatus::kPassed);
  EXPECT_DOUBLE_EQ(v.timing.speedup, 4.0);
  EXPECT_DOUBLE_EQ(v.timing.speedup_compile, 2.0);
  EXPECT_NEAR(v.timing.speedup_low, 3.6, 1e-12);
  EXPECT_EQ(v.reason, "correct on 1 shape case(s), on each of 2 parts");
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[0].where, "n=3 seed=1");
  EXPECT_EQ(v.checks[1].where, "n=4097 seed=1");
  ASSERT_FALSE(v.notes.empty());
  EXPECT_EQ(v.notes.back(),
            (Note{NoteKind::kParts,
                  "speedup: the geometric mean over 2 parts (n=3 2.00x, n=4097 8.00x); the timing "
                  "shown is the first part's"}));
}

TEST(PartsTest, AMissingCompileSpeedupLeavesNoneForTheMean) {
  Verdict v = CombinePartVerdicts({{"a", Passed(2.0, 1.5)}, {"b", Passed(2.0, 0)}}, 2);
  EXPECT_DOUBLE_EQ(v.timing.speedup, 2.0);
  EXPECT_EQ(v.timing.speedup_compile, 0);
}

TEST(PartsTest, TheFirstPartThatFailsDecidesAndIsNamed) {
  Verdict wrong;
  wrong.status = VerdictStatus::kIncorrect;
  wrong.reason = "output 0 differs at [5]";
  Verdict v = CombinePartVerdicts({{"n=3", Passed(2.0, 1.0)}, {"n=1000", wrong}}, 3);
  EXPECT_EQ(v.status, VerdictStatus::kIncorrect);
  EXPECT_EQ(v.reason, "part 2 of 3 (n=1000): output 0 differs at [5]");
  ASSERT_FALSE(v.notes.empty());
  EXPECT_EQ(v.notes.back().text, "the parts before it passed (n=3 2.00x)");
}

TEST(PartsTest, AProblemOfOnePartKeepsItsVerdict) {
  Verdict one = Passed(3.0, 2.0);
  Verdict v = CombinePartVerdicts({{"", one}}, 1);
  EXPECT_EQ(v.reason, one.reason);
  EXPECT_EQ(v.timing.speedup, 3.0);
  EXPECT_TRUE(v.notes.empty());
}

}  // namespace
}  // namespace hone
