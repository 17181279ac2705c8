#include "task/distribution.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

namespace hone {
namespace {

std::vector<double> Draw(const char* text, std::vector<int64_t> shape, Symbols syms = {}) {
  auto d = Distribution::Parse(text);
  EXPECT_TRUE(d.ok()) << d.status().message();
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<double> out(static_cast<size_t>(n));
  EXPECT_TRUE(d->Fill(out.data(), HONE_F64, shape, syms, 7, 1).ok());
  return out;
}

TEST(DistributionTest, UniformStaysInRange) {
  for (double v : Draw("uniform(-1, 1)", {1000})) {
    EXPECT_GE(v, -1);
    EXPECT_LT(v, 1);
  }
}

TEST(DistributionTest, NormalHasRoughlyItsMoments) {
  auto v = Draw("normal(0.5, 3)", {20000});
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= v.size();
  for (double x : v) var += (x - mean) * (x - mean);
  var /= v.size();
  EXPECT_NEAR(mean, 0.5, 0.1);
  EXPECT_NEAR(std::sqrt(var), 3, 0.1);
}

TEST(DistributionTest, RandintUsesCaseSymbols) {
  auto v = Draw("randint(0, V)", {5000}, {{"V", 10}});
  std::set<double> seen(v.begin(), v.end());
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 9);
}

TEST(DistributionTest, StructureIsKept) {
  auto tril = Draw("tril(normal(0, 1))", {2, 4, 4});
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 4; ++r)
      for (int c = r + 1; c < 4; ++c) EXPECT_EQ(tril[b * 16 + r * 4 + c], 0);
  for (double x : Draw("abs(normal(0, 1))", {100})) EXPECT_GE(x, 0);
  for (double x : Draw("bernoulli(0.3)", {100})) EXPECT_TRUE(x == 0 || x == 1);
  for (double x : Draw("constant(2.5)", {10})) EXPECT_EQ(x, 2.5);
}

TEST(DistributionTest, DeterministicInSeed) {
  EXPECT_EQ(Draw("normal(0, 1)", {64}), Draw("normal(0, 1)", {64}));
}

TEST(DistributionTest, SameValuesWhateverTheThreadCount) {
  auto d = Distribution::Parse("normal(0, 1)");
  ASSERT_TRUE(d.ok());
  std::vector<float> a(300000), b(300000);
  omp_set_num_threads(1);
  ASSERT_TRUE(d->Fill(a.data(), HONE_F32, {300000}, {}, 3, 2).ok());
  omp_set_num_threads(4);
  ASSERT_TRUE(d->Fill(b.data(), HONE_F32, {300000}, {}, 3, 2).ok());
  EXPECT_EQ(a, b);
  ASSERT_TRUE(d->Fill(b.data(), HONE_F32, {300000}, {}, 4, 2).ok());
  EXPECT_NE(a, b);  // another seed, other values
}

TEST(DistributionTest, BadTextIsAnError) {
  EXPECT_FALSE(Distribution::Parse("gaussian(0, 1)").ok());
  EXPECT_FALSE(Distribution::Parse("uniform(0)").ok());
  EXPECT_FALSE(Distribution::Parse("uniform").ok());
  EXPECT_FALSE(Distribution::Parse("uniform(0, )").ok());
}

}  // namespace
}  // namespace hone
