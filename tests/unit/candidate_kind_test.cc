// The kinds stored with attempts, as strategies write them and reports read
// them.
#include "store/candidate_kind.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

TEST(CandidateKindTest, AnAutoKindNamesItsArmAndItsOwnKind) {
  EXPECT_EQ(ArmKind("evolve", "mutate"), "evolve:mutate");
  EXPECT_EQ(ArmKind("refine", "refine"), "refine");
  EXPECT_EQ(OwnKind("tree:idea"), "idea");
  EXPECT_EQ(ArmOfKind("tree:idea"), "tree");
  EXPECT_EQ(OwnKind("sample"), "sample");
  EXPECT_EQ(ArmOfKind("sample"), "sample");
}

TEST(CandidateKindTest, OnlyCallsForIdeasAskForNoCode) {
  EXPECT_FALSE(AsksForCode("ideas"));
  EXPECT_FALSE(AsksForCode("tree:ideas"));
  EXPECT_TRUE(AsksForCode("idea"));
  EXPECT_TRUE(AsksForCode("root"));
  EXPECT_TRUE(AsksForCode("solution"));
  EXPECT_TRUE(AsksForCode(""));
}

}  // namespace
}  // namespace hone
