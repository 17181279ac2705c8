// Which sides are timed in several processes, and how their samples pool.
#include "pytorch/timing_processes.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(TimingProcessesTest, OnlyShortCallsAreSpreadOverProcesses) {
  EvalOptions o;
  EXPECT_EQ(TimingProcesses(o, 6e-6), 8) << "under half the threshold: twice as many";
  EXPECT_EQ(TimingProcesses(o, 9.9e-6), 8);
  EXPECT_EQ(TimingProcesses(o, 10e-6), 4);
  EXPECT_EQ(TimingProcesses(o, 19.9e-6), 4);
  EXPECT_EQ(TimingProcesses(o, 20e-6), 1);
  EXPECT_EQ(TimingProcesses(o, 1e-3), 1);
  EXPECT_EQ(TimingProcesses(o, 0), 1) << "no median: nothing to spread";
  o.short_call_processes = 1;
  EXPECT_EQ(TimingProcesses(o, 6e-6), 1) << "1 turns it off, however short the call";
  o.short_call_processes = 12;
  EXPECT_EQ(TimingProcesses(o, 6e-6), kMaxShortCallProcesses);
  o.short_call_processes = 3;
  o.short_call_seconds = 1e-3;
  EXPECT_EQ(TimingProcesses(o, 500e-6), 3);
}

TEST(TimingProcessesTest, PoolingKeepsEverySampleAndTheMedianOverhead) {
  TimingResult a, b, c;
  a.samples = {1, 2, 3};
  a.call_overhead = 0.1;
  b.samples = {4, 5};
  b.call_overhead = 0.3;
  c.samples = {6};
  c.call_overhead = 0.2;
  TimingResult pooled = PoolTimings({a, b, c});
  EXPECT_EQ(pooled.samples.size(), 6u);
  EXPECT_DOUBLE_EQ(pooled.summary.median, 3.5);
  EXPECT_DOUBLE_EQ(pooled.call_overhead, 0.2);
  EXPECT_TRUE(PoolTimings({}).samples.empty());
}

TEST(TimingProcessesTest, ABaselinesProcessesPoolWhenTheyGaveTimes) {
  BaselineTiming first;
  first.available = true;
  first.samples = {6e-6, 6e-6};
  first.warmup_calls = 10;
  first.host_seconds_per_launch = 20e-6;
  BaselineTiming second = first;
  second.samples = {7e-6, 7e-6};
  second.host_seconds_per_launch = 30e-6;
  BaselineTiming failed;
  failed.reason = "did not load";
  failed.samples = {1.0};
  PoolBaselineTimings(first, {second, failed});
  EXPECT_EQ(first.samples.size(), 4u) << "a process that gave no times adds none";
  EXPECT_DOUBLE_EQ(first.median, 6.5e-6);
  EXPECT_EQ(first.warmup_calls, 20);
  EXPECT_DOUBLE_EQ(first.host_seconds_per_launch, 25e-6);

  BaselineTiming unheld = second;
  unheld.held = false;
  PoolBaselineTimings(first, {unheld});
  EXPECT_FALSE(first.held);
  EXPECT_EQ(first.host_seconds_per_launch, 0) << "an unheld process measured no host time";
}

TEST(TimingProcessesTest, TheNoteNamesEachProcesssMedian) {
  std::string note = TimingProcessesNote("the candidate", {7.04e-6, 7.3e-6}, 7.2e-6, 20e-6);
  EXPECT_NE(note.find("the candidate timed in 2 sandbox processes (medians 7.04 us, 7.30 us)"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("its calls take 7.2 us, under 20.0 us"), std::string::npos) << note;
}

}  // namespace
}  // namespace hone
