#include "run/memory_plan.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

constexpr int64_t kGB = 1000 * 1000 * 1000;

// level1/19_ReLU.py at full size: one 6.4 GB float32 input and output.
MemoryDemand FullSizeRelu() {
  MemoryDemand d;
  d.inputs = d.forward_arguments = 6'442'450'944;
  d.outputs = 6'442'450'944;
  d.outputs_f64 = 2 * d.outputs;
  d.forward_peak = d.outputs;
  d.site = ReferenceSite::kOracle;
  d.compat = true;
  d.processes = 3;
  d.per_process = int64_t{1} << 30;
  return d;
}

TEST(MemoryPlanTest, SmallTasksGetEveryBufferAndUnknownFreeMemoryMeansNoLimit) {
  MemoryDemand d;
  d.inputs = d.outputs = 1 << 20;
  d.outputs_f64 = 2 << 20;
  MemoryPlan p = PlanMemory(d, 80 * kGB);
  EXPECT_TRUE(p.fits);
  EXPECT_EQ(p.input_sets, 3);
  EXPECT_EQ(p.pool_sets, 6);
  EXPECT_TRUE(p.ref64);
  EXPECT_TRUE(p.shrunk.empty());
  MemoryPlan unknown = PlanMemory(FullSizeRelu(), 0);
  EXPECT_TRUE(unknown.fits);
  EXPECT_EQ(unknown.input_sets, 3);
}

TEST(MemoryPlanTest, FullSizeKernelBenchShrinksThePoolThenTheSlotsToFitAnH100) {
  // An 80 GB H100 has about 84 GB free before hone starts.
  MemoryPlan p = PlanMemory(FullSizeRelu(), 84 * kGB);
  ASSERT_TRUE(p.fits) << p.Explain();
  EXPECT_LE(p.peak, 84 * kGB);
  EXPECT_EQ(p.pool_sets, 2);
  EXPECT_EQ(p.input_sets, 1);
  EXPECT_TRUE(p.ref64);
  ASSERT_EQ(p.shrunk.size(), 2u);
  EXPECT_NE(p.shrunk[0].find("timing pool of 2"), std::string::npos) << p.shrunk[0];
  EXPECT_NE(p.shrunk[1].find("1 buffer slot"), std::string::npos) << p.shrunk[1];
  // With more memory (an H200) more stays resident.
  MemoryPlan big = PlanMemory(FullSizeRelu(), 140 * kGB);
  EXPECT_GT(big.pool_sets + big.input_sets, p.pool_sets + p.input_sets);
}

TEST(MemoryPlanTest, TheFloat64ReferenceGoesLastAndTooLittleMemoryNamesTheNumbers) {
  // An outer product: tiny inputs, a huge output, so checking (with its
  // float64 reference) needs more than timing.
  MemoryDemand d = FullSizeRelu();
  d.inputs = d.forward_arguments = 1 << 20;
  MemoryPlan minimum = PlanMemory(d, 1);
  EXPECT_FALSE(minimum.fits);
  EXPECT_FALSE(minimum.ref64);
  MemoryPlan without64 = PlanMemory(d, minimum.peak);
  EXPECT_TRUE(without64.fits);
  EXPECT_FALSE(without64.ref64);
  EXPECT_EQ(without64.shrunk.back(), "no float64 precision reference");
  MemoryPlan tiny = PlanMemory(FullSizeRelu(), 20 * kGB);
  EXPECT_FALSE(tiny.fits);
  EXPECT_NE(tiny.Explain().find("20.0 GB free"), std::string::npos) << tiny.Explain();
  EXPECT_NE(tiny.Explain().find("needs "), std::string::npos) << tiny.Explain();
}

// level1/45_Average_Pooling_2D.py: a 17 GB input, a small output. The
// oracle draws each timing set while the worker holds the others; a draw
// that needs twice its inputs (a temporary) must be planned for.
TEST(MemoryPlanTest, TheOracleDrawingASetCounts) {
  MemoryDemand d = FullSizeRelu();
  d.inputs = d.forward_arguments = 17'179'869'184;
  d.outputs = d.forward_peak = 141'557'760;
  d.outputs_f64 = 2 * d.outputs;
  const int64_t without_draw = PlanMemory(d, 0).peak;
  d.draw_peak = 2 * d.inputs;
  EXPECT_EQ(PlanMemory(d, 0).peak, without_draw + d.inputs - d.forward_peak);
  // Such a draw does not fit beside two timing sets on an H100, only beside
  // one (the last resort), and not at all in 60 GB: said now, not as the
  // oracle running out of memory later. A draw of just its inputs (the
  // oracle scales them in place) fits beside two.
  EXPECT_EQ(PlanMemory(d, 84 * kGB).pool_sets, 1);
  EXPECT_FALSE(PlanMemory(d, 60 * kGB).fits);
  d.draw_peak = d.inputs;
  MemoryPlan h100 = PlanMemory(d, 84 * kGB);
  ASSERT_TRUE(h100.fits) << h100.Explain();
  EXPECT_EQ(h100.input_sets, 1);
  EXPECT_EQ(h100.pool_sets, 2);
}

// level1/33_BatchNorm.py: a 4.3 GB input and output (an 8.6 GB value set).
// With two timing sets it needed 41.9 GB and was refused with 39.9 GB free
// (a 40 GB card); its last rung, a pool of one set, fits and says so.
TEST(MemoryPlanTest, ALastResortPoolOfOneSetFitsBatchNormOnA40GBCard) {
  MemoryDemand d = FullSizeRelu();
  d.inputs = d.forward_arguments = d.outputs = d.forward_peak = 4'294'967'296;
  d.outputs_f64 = 2 * d.outputs;
  MemoryPlan p = PlanMemory(d, 39'900'000'000);
  ASSERT_TRUE(p.fits) << p.Explain();
  EXPECT_EQ(p.pool_sets, 1);
  EXPECT_EQ(p.input_sets, 1);
  EXPECT_FALSE(p.ref64);
  EXPECT_NEAR(static_cast<double>(p.peak) / kGB, 33.3, 0.1) << p.breakdown;
  ASSERT_FALSE(p.shrunk.empty());
  EXPECT_NE(p.shrunk[0].find("timing pool of 1 value set (get_inputs() alone"), std::string::npos)
      << p.shrunk[0];
  // With room for two sets, two it is.
  MemoryPlan roomier = PlanMemory(d, 42 * kGB);
  EXPECT_EQ(roomier.pool_sets, 2) << roomier.breakdown;
}

// Verification checks the candidate's outputs where they lie and compares
// its two runs by fingerprints: an output-heavy problem (level1/7's small-K
// matmul: small inputs, a large output) holds no second copy of its output
// beside the set. Its peak is the oracle making a set, as timing's is.
TEST(MemoryPlanTest, VerificationCapturesNoOutputsBesideTheSet) {
  MemoryDemand d = FullSizeRelu();
  d.inputs = d.forward_arguments = 1 * kGB;
  d.outputs = d.forward_peak = 8 * kGB;
  d.outputs_f64 = 2 * d.outputs;
  MemoryPlan least = PlanMemory(d, 1);
  // 1 slot (9 GB) + the set (9 GB) + the oracle's input and forward (9 GB)
  // + the candidate's forward (8 GB) + 3 contexts; two captured runs would add 7 GB.
  EXPECT_EQ(least.peak, 9 * kGB + 9 * kGB + 9 * kGB + 8 * kGB + 3 * (int64_t{1} << 30))
      << least.breakdown;
}

TEST(MemoryPlanTest, PeakGrowsWithEveryResidentBuffer) {
  MemoryDemand d = FullSizeRelu();
  MemoryPlan a = PlanMemory(d, 84 * kGB);
  d.model = 2 * kGB;  // the oracle keeps the model and its float64 copy, the sandbox its own
  MemoryPlan b = PlanMemory(d, 0);
  MemoryPlan a_unlimited = PlanMemory(FullSizeRelu(), 0);
  EXPECT_GT(b.peak, a_unlimited.peak);
  EXPECT_GT(a_unlimited.peak, a.peak);  // three slots and six pool sets cost more than one and two
}

// Keeping the store's and the oracle's caches between verification sets
// must not raise the peak: at full size the timing pool sets the peak and
// the caches fit under it; a model whose forward dwarfs its tensors peaks
// in verification, where the caches must take turns.
TEST(MemoryPlanTest, VerificationKeepsItsCachesOnlyUnderThePeak) {
  MemoryPlan relu = PlanMemory(FullSizeRelu(), 140 * kGB);
  EXPECT_TRUE(relu.verify_keeps_caches) << relu.breakdown;
  MemoryDemand big_forward = FullSizeRelu();
  big_forward.forward_peak = 40 * kGB;
  MemoryPlan p = PlanMemory(big_forward, 0);
  EXPECT_FALSE(p.verify_keeps_caches) << p.breakdown;
}

}  // namespace
}  // namespace hone
