// JudgeCallTime and FlushHidesWork: the worker's clock beyond the sandbox's reports,
// with the sandbox's CPU time, so that a busy machine is not taken for
// hidden work (src/run/candidate_checks.h).
#include <gtest/gtest.h>

#include "run/candidate_checks.h"

namespace hone {
namespace {

constexpr double kAllowed = 1e-3;

TEST(CallTimeTest, ExtraWithinTheAllowanceIsWithin) {
  EXPECT_EQ(JudgeCallTime(0.5e-3, kAllowed, std::nullopt), CallTimeJudgement::kWithin);
  EXPECT_EQ(JudgeCallTime(-2e-3, kAllowed, 5e-3), CallTimeJudgement::kWithin);
}

TEST(CallTimeTest, ExtraTheSandboxDidNotRunIsWaitingForACore) {
  // 2.6 ms beyond the reports on a loaded 2-core machine, 30 us of it on a core.
  EXPECT_EQ(JudgeCallTime(2.6e-3, kAllowed, 30e-6), CallTimeJudgement::kWaitedForCore);
}

TEST(CallTimeTest, ASandboxKeptOffACoreInsideItsCallsWaitedForACore) {
  // CI (2 cores, two test binaries, each with sandboxes): the reported span
  // itself held 0.3 ms of waiting, so the CPU time beyond it is negative.
  EXPECT_EQ(JudgeCallTime(3.6e-3, kAllowed, -0.3e-3), CallTimeJudgement::kWaitedForCore);
}

TEST(CallTimeTest, ExtraTheSandboxSpentRunningIsUnaccounted) {
  // A tampered timer: the work goes on, unreported, and costs CPU time.
  EXPECT_EQ(JudgeCallTime(2.6e-3, kAllowed, 2.5e-3), CallTimeJudgement::kUnaccounted);
}

TEST(CallTimeTest, WithoutCpuTimeExtraIsUnaccounted) {
  // CUDA: hidden work runs on the GPU, so CPU time says nothing.
  EXPECT_EQ(JudgeCallTime(2.6e-3, kAllowed, std::nullopt), CallTimeJudgement::kUnaccounted);
}

// The flush, 2x the last-level cache written before each timed call.
TEST(CallTimeTest, AFlushThatWaitedForACoreHidesNoWork) {
  ReportedTimeBounds b;
  b.ref_prepare = 9.376e-3;
  b.cand_prepare = 14.87e-3;  // an honest kernel beside a second test binary
  b.cand_prepare_cpu = 9.5e-3;
  EXPECT_FALSE(FlushHidesWork(b));
  b.cand_prepare_cpu = 14.8e-3;  // the flush's CPU time and 5 ms of work
  EXPECT_TRUE(FlushHidesWork(b));
  b.cand_prepare_cpu.reset();  // CUDA: no CPU time to tell them apart
  EXPECT_TRUE(FlushHidesWork(b));
  b.cand_prepare = 12e-3;  // within half the reference's again
  EXPECT_FALSE(FlushHidesWork(b));
  b.ref_prepare = -1;  // no reference side
  b.cand_prepare = 1;
  EXPECT_FALSE(FlushHidesWork(b));
}

}  // namespace
}  // namespace hone
