#include "core/wording.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(WordingTest, OneOfListsAlternativesTheWayMessagesSayThem) {
  EXPECT_EQ(OneOf({}), "");
  EXPECT_EQ(OneOf({"cpu"}), "cpu");
  EXPECT_EQ(OneOf({"cpu", "cuda"}), "cpu or cuda");
  EXPECT_EQ(OneOf({"sample", "refine", "evolve"}), "sample, refine or evolve");
}

TEST(WordingTest, AllOfListsEveryNameTheWayMessagesSayThem) {
  EXPECT_EQ(AllOf({}), "");
  EXPECT_EQ(AllOf({"relu_only"}), "relu_only");
  EXPECT_EQ(AllOf({"relu_only", "scale_only"}), "relu_only and scale_only");
  EXPECT_EQ(AllOf({"a", "b", "c"}), "a, b and c");
}

// Durations: the unit that suits them in verdicts (the run stages and
// measure/device_sharing.h share it), tenths of seconds for waits and steps.
TEST(WordingTest, DurationsAreWordedOneWay) {
  EXPECT_EQ(Seconds(12.3e-6), "12.3 us");
  EXPECT_EQ(Seconds(4.567e-3), "4.567 ms");
  EXPECT_EQ(Seconds(2.1), "2.10 s");
  EXPECT_EQ(TenthsOfSeconds(12.34), "12.3 s");
}

TEST(WordingTest, GigabytesUseDecimalUnits) {
  EXPECT_EQ(Gigabytes(6'400'000'000), "6.40 GB");
  EXPECT_EQ(Gigabytes(84'000'000'000), "84.0 GB");
  EXPECT_EQ(Gigabytes(8'912'000), "8.9 MB");
  EXPECT_EQ(Gigabytes(100'000'000), "0.10 GB");
}

TEST(WordingTest, OtherNumbersKeepSixSignificantDigits) {
  EXPECT_EQ(Num(1.5), "1.5");
  EXPECT_EQ(Num(123.456789), "123.457");
}

}  // namespace
}  // namespace hone
