#include "measure/stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "measure/timer.h"

namespace hone {
namespace {

TEST(StatsTest, MedianAndInterval) {
  SampleSummary s = Summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_LE(s.ci_low, s.median);
  EXPECT_GE(s.ci_high, s.median);
  EXPECT_EQ(Summarize({1, 2, 3, 4}).median, 2.5);
}

TEST(StatsTest, RseShrinksWithMoreSamples) {
  std::vector<double> few, many;
  for (int i = 0; i < 10; ++i) few.push_back(100 + (i % 5));
  for (int i = 0; i < 1000; ++i) many.push_back(100 + (i % 5));
  EXPECT_GT(Summarize(few).rse, Summarize(many).rse);
  EXPECT_LT(Summarize(many).rse, 0.01);
  EXPECT_TRUE(std::isinf(Summarize({1, 2}).rse));
}

TEST(TimerTest, StopsWhenPreciseAndInterleaves) {
  InterleavedTimer timer(2);
  std::vector<int> order;
  TimingPolicy p;
  p.warmup_seconds = 0;
  p.min_reps = 10;
  p.budget_seconds = 100;
  auto stop = timer.Run(p, [&](int side, int, bool timed, double* t) {
    if (timed) order.push_back(side);
    *t = side == 0 ? 2.0 : 1.0;  // constant: precise at once
    return true;
  });
  EXPECT_EQ(stop, TimerStop::kPrecise);
  EXPECT_EQ(timer.samples(0).size(), 10u);
  EXPECT_EQ(timer.samples(1).size(), 10u);
  // Alternating which side goes first: 0,1 then 1,0.
  ASSERT_GE(order.size(), 4u);
  EXPECT_EQ(order[0], 0);
  EXPECT_EQ(order[2], 1);
}

TEST(TimerTest, StopsAtMaxRepsWhenNoisy) {
  InterleavedTimer timer(1);
  TimingPolicy p;
  p.warmup_seconds = 0;
  p.min_reps = 5;
  p.max_reps = 50;
  p.budget_seconds = 100;
  int i = 0;
  auto stop = timer.Run(p, [&](int, int, bool, double* t) {
    *t = (++i % 2) ? 1.0 : 3.0;  // never precise
    return true;
  });
  EXPECT_EQ(stop, TimerStop::kMaxReps);
  EXPECT_EQ(timer.samples(0).size(), 50u);
}

TEST(TimerTest, FailureStopsTheLoop) {
  InterleavedTimer timer(2);
  TimingPolicy p;
  p.warmup_seconds = 0;
  int calls = 0;
  auto stop = timer.Run(p, [&](int, int, bool, double* t) {
    *t = 1;
    return ++calls < 7;
  });
  EXPECT_EQ(stop, TimerStop::kFailed);
}

}  // namespace
}  // namespace hone
