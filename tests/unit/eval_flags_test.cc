// Numbers from the command line (src/cli/eval_flags.h): what is not a
// finite, positive number of seconds is refused naming the flag, and what
// is too large to add to a clock is capped rather than taken as expired.
#include "cli/eval_flags.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

namespace hone {
namespace {

Status Refusal(double cli::EvalFlags::*field, double value) {
  cli::EvalFlags f;
  f.*field = value;
  return ToEvalOptions(f).status();
}

TEST(EvalFlagsTest, NotAFinitePositiveNumberOfSecondsIsRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, 0.0, -1.0}) {
    Status st = Refusal(&cli::EvalFlags::timeout, bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidInput) << bad;
    EXPECT_EQ(st.message().rfind("--timeout: expected a finite, positive number of seconds", 0), 0u)
        << st.message();
    EXPECT_EQ(Refusal(&cli::EvalFlags::call_timeout, bad).message().rfind("--call-timeout", 0), 0u);
    EXPECT_EQ(Refusal(&cli::EvalFlags::time_budget, bad).message().rfind("--time-budget", 0), 0u);
    EXPECT_FALSE(Refusal(&cli::EvalFlags::target_rse, bad).ok());
  }
  EXPECT_TRUE(Refusal(&cli::EvalFlags::warmup, 0.0).ok());
  EXPECT_FALSE(Refusal(&cli::EvalFlags::warmup, nan).ok());
}

TEST(EvalFlagsTest, HugeTimeoutsAreCappedNotExpired) {
  cli::EvalFlags f;
  f.timeout = 1e10;
  f.call_timeout = 1e30;
  auto o = ToEvalOptions(f);
  ASSERT_TRUE(o.ok()) << o.status().message();
  const auto week = std::chrono::hours(24 * 7);
  EXPECT_EQ(o->total_timeout, week);
  EXPECT_EQ(o->max_call_timeout, week);
  EXPECT_GT(std::chrono::steady_clock::now() + o->total_timeout, std::chrono::steady_clock::now());
}

}  // namespace
}  // namespace hone
