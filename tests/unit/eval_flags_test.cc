// Numbers from the command line (src/cli/eval_flags.h, search_flags.h,
// number_flags.h): what is not a finite, positive number of seconds is
// refused naming the flag, and what is too large to add to a clock is capped
// rather than taken as expired. `hone serve` and `hone worker` use the same
// checks (tests/integration/serve_cli_test.cc, worker_fleet_test.cc).
#include "cli/eval_flags.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

#include "cli/number_flags.h"
#include "cli/search_flags.h"

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

TEST(EvalFlagsTest, AMemoryLimitThatIsNotFiniteIsRefused) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), inf, -1.0, 1e300}) {
    Status st = Refusal(&cli::EvalFlags::memory_limit_mb, bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidInput) << bad;
    EXPECT_EQ(st.message().rfind("--memory-limit: expected", 0), 0u) << st.message();
  }
}

TEST(NumberFlagsTest, SecondsAreFiniteAndCappedAtAWeek) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, -1.0}) {
    for (bool zero_ok : {false, true}) {
      auto r = cli::CheckedSeconds("--lease-seconds", bad, zero_ok);
      ASSERT_FALSE(r.ok()) << bad;
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
      EXPECT_EQ(r.status().message().rfind("--lease-seconds: expected a finite", 0), 0u)
          << r.status().message();
    }
  }
  EXPECT_FALSE(cli::CheckedSeconds("--x", 0, false).ok());
  EXPECT_EQ(*cli::CheckedSeconds("--x", 0, true), 0);
  EXPECT_EQ(*cli::CheckedSeconds("--x", 2.5, false), 2.5);
  EXPECT_EQ(*cli::CheckedSeconds("--x", 1e300, false), cli::kMaxFlagSeconds);
  // What the callers do with it: milliseconds in an int64_t.
  EXPECT_EQ(static_cast<int64_t>(*cli::CheckedSeconds("--x", 1e30, true) * 1000),
            int64_t{7} * 24 * 3600 * 1000);
}

TEST(NumberFlagsTest, OtherNumbersAreFiniteAndNotNegativeUnlessAllowed) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf}) {
    EXPECT_EQ(cli::CheckFiniteNumber("--temperature", bad, true).code(), StatusCode::kInvalidInput);
    EXPECT_EQ(cli::CheckFiniteNumber("--budget-dollars", bad)
                  .message()
                  .rfind("--budget-dollars: expected a finite number, 0 or more", 0),
              0u);
  }
  EXPECT_FALSE(cli::CheckFiniteNumber("--budget-dollars", -1).ok());
  EXPECT_TRUE(cli::CheckFiniteNumber("--temperature", -1, true).ok());
  EXPECT_TRUE(cli::CheckFiniteNumber("--budget-dollars", 0).ok());
}

// The search's flags as `hone optimize` and `hone bench --model` parse and
// check them: NaN or infinity is refused naming the flag, never stored (a
// run's JSON would hold null, which --resume cannot read back).
TEST(SearchFlagsTest, NumbersThatAreNotFiniteAreRefusedNamingTheFlag) {
  for (const char* flag : {"--retry-base-delay", "--temperature", "--request-timeout",
                           "--budget-dollars", "--budget-seconds", "--target-speedup"}) {
    for (const char* bad : {"nan", "inf", "-inf"}) {
      CLI::App app;
      cli::SearchFlags f;
      cli::AddSearchFlags(&app, f, "the search");
      app.parse(std::string(flag) + " " + bad, false);
      Status st = cli::ValidateSearchFlags(f);
      EXPECT_EQ(st.code(), StatusCode::kInvalidInput) << flag << " " << bad;
      EXPECT_EQ(st.message().rfind(std::string(flag) + ": expected a finite", 0), 0u)
          << flag << " " << bad << ": " << st.message();
    }
  }
  for (const char* flag :
       {"--retry-base-delay", "--request-timeout", "--budget-dollars", "--budget-seconds",
        "--target-speedup", "--budget-candidates", "--budget-tokens"}) {
    CLI::App app;
    cli::SearchFlags f;
    cli::AddSearchFlags(&app, f, "the search");
    app.parse(std::string(flag) + " -1", false);
    EXPECT_EQ(cli::ValidateSearchFlags(f).message().rfind(flag, 0), 0u)
        << flag << ": " << cli::ValidateSearchFlags(f).message();
  }
  CLI::App app;
  cli::SearchFlags f;
  cli::AddSearchFlags(&app, f, "the search");
  app.parse("--temperature -1 --request-timeout 1e30 --budget-seconds 1e30", false);
  EXPECT_TRUE(cli::ValidateSearchFlags(f).ok()) << cli::ValidateSearchFlags(f).message();
}

}  // namespace
}  // namespace hone
