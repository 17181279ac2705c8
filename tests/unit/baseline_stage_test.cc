// Which cached eager baselines are timed again beside a host-bound candidate.
#include "pytorch/baseline_stage.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(BaselineStageTest, OnlyAnUnheldGpuBaselineIsTimedAgainBeside) {
  BackendTraits gpu;
  gpu.held_calls = true;
  BackendTraits cpu;
  cpu.held_calls = false;
  BaselineTiming unheld;
  unheld.available = true;
  unheld.held = false;
  BaselineTiming held = unheld;
  held.held = true;
  BaselineTiming missing;
  missing.held = false;
  missing.reason = "did not load";
  EXPECT_TRUE(RetimedBesideHostBound(unheld, gpu)) << "its time was the host's launch rate then";
  EXPECT_FALSE(RetimedBesideHostBound(held, gpu)) << "a held time is the GPU's; it keeps";
  EXPECT_FALSE(RetimedBesideHostBound(unheld, cpu)) << "a CPU baseline is cached as timed";
  EXPECT_FALSE(RetimedBesideHostBound(missing, gpu)) << "nothing cached to stand for";
}

}  // namespace
}  // namespace hone
