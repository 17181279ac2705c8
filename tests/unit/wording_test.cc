#include "core/wording.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(WordingTest, OneOfListsAlternativesTheWayMessagesSayThem) {
  EXPECT_EQ(OneOf({}), "");
  EXPECT_EQ(OneOf({"cpu"}), "cpu");
  EXPECT_EQ(OneOf({"cpu", "cuda"}), "cpu or cuda");
  EXPECT_EQ(OneOf({"sample", "refine", "evolve"}), "sample, refine or evolve");
}

TEST(WordingTest, AllOfListsEveryNameTheWayMessagesSayThem) {
  EXPECT_EQ(AllOf({}), "");
  EXPECT_EQ(AllOf({"relu_only"}), "relu_only");
  EXPECT_EQ(AllOf({"relu_only", "scale_only"}), "relu_only and scale_only");
  EXPECT_EQ(AllOf({"a", "b", "c"}), "a, b and c");
}

}  // namespace
}  // namespace hone
