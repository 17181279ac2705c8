// The interleaved timer: calls that are made like timed ones but are not
// samples (NaN) count as repetitions, not samples.
#include "measure/timer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

TEST(InterleavedTimerTest, NanCallsAreNotSamples) {
  TimingPolicy p;
  p.warmup_seconds = 0;
  p.min_warmup_calls = 1;
  p.min_reps = 4;
  p.max_reps = 12;
  p.target_rse = -1;  // never precise: runs to max_reps
  p.budget_seconds = 100;
  InterleavedTimer timer(1);
  timer.Run(p, [](int, int rep, bool timed, double* s) {
    *s = timed && rep % 3 == 0 ? std::nan("") : 1e-3;
    return true;
  });
  EXPECT_EQ(timer.samples(0).size(), 8u);  // 12 repetitions, 4 of them not samples
  for (double s : timer.samples(0)) EXPECT_EQ(s, 1e-3);
}

}  // namespace
}  // namespace hone
