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

}  // namespace
}  // namespace hone
