#include "pytorch/memory_need.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

// level1/19_ReLU.py at full size: KernelBench's evaluator holds the input,
// the reference's output and the candidate's forward in one process.
TEST(MemoryNeedTest, KernelBenchHoldsTheInputsTwoOutputsTwoModelsAndOneContext) {
  MemoryDemand d;
  d.inputs = d.forward_arguments = 6'442'450'944;
  d.outputs = d.forward_peak = 6'442'450'944;
  EXPECT_EQ(KernelBenchPeak(d), 3 * 6'442'450'944 + (int64_t{1} << 30));
  d.model = 1000;
  d.inputs += 1000;  // the model's state counts once as the model, not as inputs
  EXPECT_EQ(KernelBenchPeak(d), 3 * 6'442'450'944 + 2000 + (int64_t{1} << 30));
}

}  // namespace
}  // namespace hone
