#include "search/task_signature.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "support/builtin_tasks.h"
#include "support/source_dir.h"
#include "task/task_loader.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

using testing::SourceDir;

TaskSignature Load(const std::string& folder) {
  auto task = hone::testing::LoadBuiltInTask(SourceDir() / folder);
  EXPECT_TRUE(task.ok()) << task.status().message();
  return task.ok() ? SignatureOf(*task, "cpu") : TaskSignature{};
}

// An elementwise f32 task: 2 rank-1 inputs, 1 output, N elements each.
TaskSignature Elementwise(double n, double flops_per_element = 2) {
  TaskSignature s;
  s.name = "ew";
  s.category = "elementwise";
  s.backend = "cpu";
  s.dtypes = {"f32"};
  s.input_ranks = {1, 1};
  s.output_ranks = {1};
  s.elements = 3 * n;
  s.bytes = 12 * n;
  s.flops = flops_per_element * n;
  return s;
}

TaskSignature Matmul(double m) {
  TaskSignature s;
  s.name = "mm";
  s.category = "matmul";
  s.backend = "cpu";
  s.dtypes = {"f32"};
  s.input_ranks = {2, 2};
  s.output_ranks = {2};
  s.elements = 3 * m * m;
  s.bytes = 12 * m * m;
  s.flops = 2 * m * m * m;
  return s;
}

TEST(TaskSignatureTest, DescribesTheFirstCaseOfANativeTask) {
  TaskSignature s = Load("tests/integration/fixture_add");
  EXPECT_EQ(s.name, "fixture_add");
  EXPECT_EQ(s.category, "elementwise");
  EXPECT_EQ(s.dtypes, std::vector<std::string>{"f32"});
  EXPECT_EQ(s.input_ranks, (std::vector<int>{1, 1}));
  EXPECT_EQ(s.output_ranks, std::vector<int>{1});
  ASSERT_TRUE(s.elements && s.bytes && s.flops);
  EXPECT_DOUBLE_EQ(*s.elements, 3 * 4096);  // N = 4096, the first case
  EXPECT_DOUBLE_EQ(*s.bytes, 12 * 4096);    // from the cost formula
  EXPECT_DOUBLE_EQ(*s.flops, 2 * 4096);
  EXPECT_NEAR(*s.Intensity(), 1.0 / 6, 1e-12);
  EXPECT_EQ(s.cost_bytes, "12 * N");
}

TEST(TaskSignatureTest, RoundTripsThroughJson) {
  TaskSignature s = Load("tasks/examples/matmul");
  TaskSignature back = SignatureFromJson(SignatureToJson(s));
  EXPECT_EQ(SignatureToJson(back), SignatureToJson(s));
  EXPECT_DOUBLE_EQ(TaskSimilarity(s, back), 1.0);
  // Anything else reads as unknown, never as an error.
  TaskSignature junk = SignatureFromJson(nlohmann::json::parse(R"({"dtypes": 3, "bytes": "x"})"));
  EXPECT_TRUE(junk.dtypes.empty());
  EXPECT_FALSE(junk.bytes.has_value());
  EXPECT_TRUE(SignatureFromJson(nlohmann::json()).category.empty());
}

TEST(TaskSimilarityTest, IsOneForItselfAndSymmetric) {
  TaskSignature a = Elementwise(4096), b = Matmul(256), c = Elementwise(1 << 20, 9);
  EXPECT_DOUBLE_EQ(TaskSimilarity(a, a), 1.0);
  EXPECT_DOUBLE_EQ(TaskSimilarity(b, b), 1.0);
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{a, c}, std::pair{b, c}})
    EXPECT_DOUBLE_EQ(TaskSimilarity(x, y), TaskSimilarity(y, x));
}

TEST(TaskSimilarityTest, WeighsEachFeature) {
  TaskSignature a = Elementwise(4096);
  TaskSignature b = a;
  b.category = "ELEMENTWISE";  // case does not matter
  EXPECT_DOUBLE_EQ(TaskSimilarity(a, b), 1.0);
  b.category = "reduction";
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.35, 1e-12);
  b = a;
  b.dtypes = {"f16"};
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.15, 1e-12);
  b.dtypes = {"f16", "f32"};  // Jaccard 1/2
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.075, 1e-12);
  b = a;
  b.flops = *a.flops * 10;  // one decade apart: half the intensity term
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.125, 1e-12);
  b.flops = *a.flops * 1000;  // beyond two decades: none of it
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.25, 1e-12);
  b = a;
  b.elements = *a.elements * 32;  // 5 doublings of 10
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.075, 1e-12);
  b = a;
  b.input_ranks = {2, 2};  // no input rank in common, outputs the same
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.05, 1e-12);
}

TEST(TaskSimilarityTest, AnUnknownFeatureCountsHalf) {
  TaskSignature a = Elementwise(4096), b = a;
  b.category.clear();
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.35 / 2, 1e-12);
  b = a;
  b.flops.reset();  // no intensity
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.25 / 2, 1e-12);
  b = a;
  b.elements.reset();
  b.dtypes.clear();
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.15 / 2 - 0.15 / 2, 1e-12);
  EXPECT_DOUBLE_EQ(TaskSimilarity(TaskSignature{}, TaskSignature{}), 0.5);
  // Every PyTorch problem is "pytorch": that says nothing of the operator.
  a.category = b.category = "pytorch";
  b = a;
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.35 / 2, 1e-12);
  a.category = b.category = "other";
  EXPECT_NEAR(TaskSimilarity(a, b), 1 - 0.35 / 2, 1e-12);
}

// The must-show of memory across tasks: an elementwise task is like
// another elementwise one, and unlike a matmul or a softmax.
TEST(TaskSimilarityTest, SimilarTasksScoreAboveTheRecallThresholdAndUnrelatedOnesBelow) {
  TaskSignature add = Load("tests/integration/fixture_add");
  TaskSignature affine = Load("tests/integration/fixture_affine");
  TaskSignature gelu = Load("tasks/examples/gelu");
  TaskSignature matmul = Load("tasks/examples/matmul");
  TaskSignature softmax = Load("tasks/examples/softmax");
  EXPECT_GE(TaskSimilarity(add, affine), 0.6);
  EXPECT_GE(TaskSimilarity(add, gelu), 0.6);
  EXPECT_LT(TaskSimilarity(add, matmul), 0.4);
  EXPECT_LT(TaskSimilarity(add, softmax), 0.6);
  EXPECT_GT(TaskSimilarity(add, affine), TaskSimilarity(add, softmax));
  EXPECT_GT(TaskSimilarity(add, softmax), TaskSimilarity(add, matmul));
}

}  // namespace
}  // namespace hone
