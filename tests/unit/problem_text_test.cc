#include "task/problem_text.h"

#include <gtest/gtest.h>

#include "format/flashinfer_codegen.h"

namespace hone {
namespace {

TEST(ProblemTextTest, StopsAboveTheMarkerLine) {
  std::string problem = "import torch\n\nclass Model: ...\n";
  EXPECT_EQ(ProblemTextOf(problem + flashinfer::kHelpersMarker + "\ndef _helper(): ...\n"),
            problem.substr(0, problem.size() - 1));
}

TEST(ProblemTextTest, AFileWithoutTheMarkerIsAllProblem) {
  EXPECT_EQ(ProblemTextOf("class Model: ...\n"), "class Model: ...\n");
  EXPECT_EQ(ProblemTextOf(std::string(kNotPartOfTheProblemMarker)), "");
}

}  // namespace
}  // namespace hone
