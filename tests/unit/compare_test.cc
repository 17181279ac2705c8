#include "verify/compare.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

TEST(CompareTest, WithinToleranceIsOk) {
  float expected[] = {1.0f, -2.0f, 0.0f, 100.0f};
  float actual[] = {1.00001f, -2.00001f, 0.00005f, 100.005f};
  Mismatch m = CompareElements(actual, expected, HONE_F32, 4, {1e-4, 1e-4, 0});
  EXPECT_TRUE(m.ok);
  EXPECT_EQ(m.num_bad, 0);
}

TEST(CompareTest, ReportsFirstBadAndCounts) {
  float expected[] = {1, 2, 3, 4, 5};
  float actual[] = {1, 2.5f, 3, 40, 5};
  Mismatch m = CompareElements(actual, expected, HONE_F32, 5, {1e-4, 1e-4, 0});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.num_bad, 2);
  EXPECT_EQ(m.first_bad, 1);
  EXPECT_EQ(m.expected_at_first, 2);
  EXPECT_FLOAT_EQ(m.actual_at_first, 2.5f);
  EXPECT_EQ(m.worst, 3);
  EXPECT_FLOAT_EQ(m.max_abs_err, 36);
}

TEST(CompareTest, NanWhereReferenceIsFiniteFails) {
  float expected[] = {1, 2};
  float actual[] = {1, NAN};
  Mismatch m = CompareElements(actual, expected, HONE_F32, 2, {1, 1, 0});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.nan_or_inf, 1);
  // NaN where the reference is NaN, and matching infinities, pass.
  float e2[] = {NAN, INFINITY, -INFINITY};
  float a2[] = {NAN, INFINITY, -INFINITY};
  EXPECT_TRUE(CompareElements(a2, e2, HONE_F32, 3, {0, 0, 0}).ok);
  float a3[] = {NAN, -INFINITY, -INFINITY};
  EXPECT_FALSE(CompareElements(a3, e2, HONE_F32, 3, {1, 1, 0}).ok);
}

TEST(CompareTest, IntegersAreExact) {
  int32_t e[] = {1, 2, 3};
  int32_t a[] = {1, 2, 4};
  EXPECT_FALSE(CompareElements(a, e, HONE_I32, 3, {0, 0, 0}).ok);
}

TEST(CompareTest, BoolsMustBeZeroOrOne) {
  uint8_t e[] = {1, 0, 1};
  uint8_t ok[] = {1, 0, 1};
  uint8_t poisoned[] = {1, 0, 0xFF};
  EXPECT_TRUE(CompareElements(ok, e, HONE_BOOL, 3, {0, 0, 0}).ok);
  Mismatch m = CompareElements(poisoned, e, HONE_BOOL, 3, {0, 0, 0});
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.first_bad, 2);
}

TEST(CompareTest, RelativeL2CatchesLowPrecision) {
  std::vector<double> ref(1000);
  std::vector<float> f32(1000), f16ish(1000);
  for (int i = 0; i < 1000; ++i) {
    ref[i] = std::sin(i * 0.37) * 3;
    f32[i] = static_cast<float>(ref[i]);
    f16ish[i] = HalfToFloat(FloatToHalf(f32[i]));
  }
  EXPECT_LT(RelativeL2Error(f32.data(), HONE_F32, ref.data(), 1000), 1e-7);
  EXPECT_GT(RelativeL2Error(f16ish.data(), HONE_F32, ref.data(), 1000), 1e-5);
}

TEST(CompareTest, IndexStringIsRowMajor) {
  EXPECT_EQ(IndexString(7, {2, 3, 4}), "[0, 1, 3]");
  EXPECT_EQ(IndexString(23, {2, 3, 4}), "[1, 2, 3]");
  EXPECT_EQ(IndexString(0, {}), "[]");
}

TEST(CompareTest, CountsDifferentElements) {
  int32_t a[] = {1, 2, 3, 4};
  int32_t b[] = {1, 9, 3, 9};
  int64_t first = 0;
  EXPECT_EQ(CountDifferentElements(a, b, HONE_I32, 4, &first), 2);
  EXPECT_EQ(first, 1);
  EXPECT_FALSE(SameBytes(a, b, sizeof a));
}

}  // namespace
}  // namespace hone
