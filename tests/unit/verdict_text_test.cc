// The terminal summary of a verdict says when its speedup is not resolved.
#include "report/verdict_text.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

Verdict Timed() {
  Verdict v;
  v.status = VerdictStatus::kPassed;
  v.reason = "correct";
  v.timing.candidate_time = TimingResult{};
  v.timing.candidate_time->summary.median = 1e-3;
  v.timing.reference_time = TimingResult{};
  v.timing.reference_time->summary.median = 2.91e-3;
  v.timing.speedup = 2.91;
  return v;
}

TEST(VerdictTextTest, AResolvedSpeedupIsStatedPlainly) {
  std::string text = FormatVerdict(Timed(), false);
  EXPECT_NE(text.find("speedup: 2.91x"), std::string::npos) << text;
  EXPECT_EQ(text.find("not resolved"), std::string::npos) << text;
}

TEST(VerdictTextTest, AnUnresolvedSpeedupSaysWhy) {
  Verdict v = Timed();
  v.timing.speedup_unresolved = "its 95% interval 0.35x .. 10.50x includes 1";
  std::string text = FormatVerdict(v, false);
  EXPECT_NE(text.find("speedup not resolved: its 95% interval 0.35x .. 10.50x includes 1"),
            std::string::npos)
      << text;
}

// A candidate that did not build ran no check: the summary does not say
// "1 passed, 0 failed" for its static checks.
TEST(VerdictTextTest, AFailedBuildRanNoCheck) {
  Verdict v;
  v.status = VerdictStatus::kCompileError;
  v.reason = "the candidate does not compile: c.cpp:1:1: error: expected ';'";
  v.checks.push_back({});
  std::string text = FormatVerdict(v, false);
  EXPECT_NE(text.find("checks: none run (it did not build)"), std::string::npos) << text;
  EXPECT_EQ(text.find("1 passed"), std::string::npos) << text;
}

// The static lint is no check of what the candidate did: an empty file
// that built and would not load said "checks: 1 passed, 1 failed".
TEST(VerdictTextTest, TheLintIsNotCountedAsAPassedCheck) {
  Verdict v;
  v.status = VerdictStatus::kRuntimeError;
  v.reason = "the candidate does not export hone_forward";
  v.checks.push_back({{CheckKind::kLint}, "source", true, ""});
  v.checks.push_back({{CheckKind::kCall}, "while loading", false, v.reason});
  std::string text = FormatVerdict(v, false);
  EXPECT_NE(text.find("checks: 0 passed, 1 failed"), std::string::npos) << text;
}

}  // namespace
}  // namespace hone
