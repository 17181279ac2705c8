// Ideas read from replies as models write them: the asked-for fenced list,
// and the sloppier forms they often send instead.
#include "search/idea_list.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

using Ideas = std::vector<std::string>;

TEST(IdeaListTest, ReadsTheNumberedListInTheIdeasBlock) {
  const char* reply =
      "The kernel is memory bound.\n\n```ideas\n1. Vectorise the inner loop with AVX2.\n"
      "2. Split the rows over all cores.\n3) Fuse the two passes into one.\n```\nGood luck.";
  EXPECT_EQ(ParseIdeas(reply, 5),
            (Ideas{"Vectorise the inner loop with AVX2.", "Split the rows over all cores.",
                   "Fuse the two passes into one."}));
}

TEST(IdeaListTest, TakesAtMostTheNumberAskedFor) {
  EXPECT_EQ(ParseIdeas("```ideas\n1. a\n2. b\n3. c\n```", 2), (Ideas{"a", "b"}));
}

TEST(IdeaListTest, ReadsBulletsWithoutAFenceAndSkipsTheIntroduction) {
  const char* reply =
      "Here are some ideas:\n\n- **Tiling**: block the loops for the L2 cache.\n"
      "* Use `__restrict__` pointers.\n";
  EXPECT_EQ(ParseIdeas(reply, 5),
            (Ideas{"Tiling: block the loops for the L2 cache.", "Use `__restrict__` pointers."}));
}

TEST(IdeaListTest, JoinsWrappedLinesAndNestedBulletsToTheirItem) {
  const char* reply =
      "1. Vectorise the loop:\n   process 8 floats at a time\n   - with an aligned tail\n"
      "2. Unroll by four\n";
  EXPECT_EQ(ParseIdeas(reply, 5),
            (Ideas{"Vectorise the loop: process 8 floats at a time with an aligned tail",
                   "Unroll by four"}));
}

TEST(IdeaListTest, NeverReadsCodeAsIdeas) {
  const char* reply =
      "```cpp\n// 1. not an idea\nint main() {}\n```\n1. Use OpenMP for the outer loop.\n";
  EXPECT_EQ(ParseIdeas(reply, 5), (Ideas{"Use OpenMP for the outer loop."}));
}

TEST(IdeaListTest, FallsBackToParagraphs) {
  const char* reply = "Ideas to try:\n\nCache-block the matrix.\n\nPrefetch the next row.";
  EXPECT_EQ(ParseIdeas(reply, 5), (Ideas{"Cache-block the matrix.", "Prefetch the next row."}));
}

// A model that answers a call for ideas with a kernel gives no ideas: its
// prose only frames the code.
TEST(IdeaListTest, ProseAroundCodeOrFramingTheReplyIsNoIdea) {
  EXPECT_TRUE(ParseIdeas("Here is a kernel for this task.\n\n```cpp\nint x;\n```\n\nIt uses "
                         "shared memory.",
                         5)
                  .empty());
  EXPECT_EQ(ParseIdeas("Sure! Here are some ideas.\n\nFuse the two loops.", 5),
            (Ideas{"Fuse the two loops."}));
}

TEST(IdeaListTest, DropsRepeatsAndIdeaPrefixes) {
  const char* reply = "1. Idea 1: Use AVX2!\n2. use avx2\n3. 1.5x from unrolling\n";
  EXPECT_EQ(ParseIdeas(reply, 5), (Ideas{"Use AVX2!", "1.5x from unrolling"}));
}

TEST(IdeaListTest, NothingUsableIsEmpty) {
  EXPECT_TRUE(ParseIdeas("", 3).empty());
  EXPECT_TRUE(ParseIdeas("```ideas\n```", 3).empty());
  EXPECT_TRUE(ParseIdeas("```cpp\nint x;\n```", 3).empty());
}

TEST(IdeaListTest, CutsALongIdea) {
  std::string reply = "1. " + std::string(2000, 'x');
  auto ideas = ParseIdeas(reply, 1);
  ASSERT_EQ(ideas.size(), 1u);
  EXPECT_LE(ideas[0].size(), kMaxIdeaChars);
  EXPECT_TRUE(ideas[0].ends_with("..."));
}

TEST(IdeaListTest, NormalisedIdeasCompareEqualWhateverTheirCaseAndPunctuation) {
  EXPECT_EQ(NormalizeIdea("  Use AVX2 -- vectorise!! "), "use avx2 vectorise");
  EXPECT_EQ(NormalizeIdea("use avx2, vectorise"), NormalizeIdea("Use AVX2: vectorise."));
  EXPECT_NE(NormalizeIdea("unroll by 4"), NormalizeIdea("unroll by 8"));
}

}  // namespace
}  // namespace hone
