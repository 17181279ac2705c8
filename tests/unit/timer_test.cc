// The interleaved timer: calls that are made like timed ones but are not
// samples (NaN) count as repetitions, not samples.
#include "measure/timer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

// No warm-up to speak of, no budget: the repetition counts decide.
TimingPolicy Reps(int min_reps, int max_reps, double target_rse) {
  TimingPolicy p;
  p.warmup_seconds = 0;
  p.min_warmup_calls = 1;
  p.min_reps = min_reps;
  p.max_reps = max_reps;
  p.target_rse = target_rse;
  p.budget_seconds = 100;
  return p;
}

TEST(InterleavedTimerTest, NanCallsAreNotSamples) {
  TimingPolicy p = Reps(4, 12, -1);  // never precise: runs to max_reps
  InterleavedTimer timer(1);
  timer.Run(p, [](int, int rep, bool timed, double* s) {
    *s = timed && rep % 3 == 0 ? std::nan("") : 1e-3;
    return true;
  });
  EXPECT_EQ(timer.samples(0).size(), 8u);  // 12 repetitions, 4 of them not samples
  for (double s : timer.samples(0)) EXPECT_EQ(s, 1e-3);
}

TEST(InterleavedTimerTest, PairedRatiosKeepEachRepetitionsTwoCallsTogether) {
  TimingPolicy p = Reps(4, 9, -1);
  InterleavedTimer timer(2);
  // The host's speed jumps between two regimes every few repetitions, the
  // same for both sides; side 1 is always 20% slower than side 0. Every
  // third repetition is a re-check on both sides (no sample).
  timer.Run(p, [](int side, int rep, bool timed, double* s) {
    const double regime = (rep / 2) % 2 ? 1.4 : 1.0;
    *s = timed && rep % 3 == 2 ? std::nan("") : regime * (side == 1 ? 1.2e-3 : 1e-3);
    return true;
  });
  const std::vector<double> ratios = timer.PairedRatios(1, 0);
  ASSERT_EQ(ratios.size(), 6u);  // 9 repetitions, 3 of them re-checks
  for (double r : ratios) EXPECT_NEAR(r, 1.2, 1e-12);
  EXPECT_EQ(timer.samples(0).size(), 6u);
}

TEST(InterleavedTimerTest, PairedTimingIsPreciseWhenTheRatioIsWhateverEachSideSpreads) {
  TimingPolicy p = Reps(6, 200, 0.01);
  // Shared drift of +/-30% from one repetition to the next: each side's
  // median is imprecise, their ratio exact.
  auto drifting = [](int side, int rep, bool, double* s) {
    const double noise = std::sin(rep * 12.9898) * 43758.5453;
    *s = (0.7 + 0.6 * (noise - std::floor(noise))) * (side == 1 ? 2e-3 : 1e-3);
    return true;
  };
  InterleavedTimer unpaired(2);
  EXPECT_EQ(unpaired.Run(p, drifting), TimerStop::kMaxReps);
  p.paired = true;
  InterleavedTimer paired(2);
  EXPECT_EQ(paired.Run(p, drifting), TimerStop::kPrecise);
  EXPECT_EQ(paired.samples(0).size(), 6u) << "precise as soon as min_reps allows";
}

}  // namespace
}  // namespace hone
