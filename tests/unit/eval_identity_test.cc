// EvalIdentity (run/eval_options.h): the name of an evaluation's settings in
// the store's work keys, so a resumed run re-uses only verdicts measured the
// same way.
#include <gtest/gtest.h>

#include "run/eval_options.h"

namespace hone {
namespace {

TEST(EvalIdentityTest, ChangesWithWhatChangesAVerdictOnly) {
  EvalOptions o;
  const std::string base = EvalIdentity("cpu", o, "full size");
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(base, EvalIdentity("cpu", EvalOptions(), "full size"));  // a value, not an address
  EXPECT_NE(base, EvalIdentity("cuda", o, "full size"));
  EXPECT_NE(base, EvalIdentity("cpu", o, "scale 0.25"));
  EvalOptions other = o;
  other.timing.budget_seconds = 0.5;
  EXPECT_NE(base, EvalIdentity("cpu", other, "full size"));
  other = o;
  other.flush = FlushMode::kLines;
  EXPECT_NE(base, EvalIdentity("cpu", other, "full size"));
  other = o;
  other.lint_allow.insert("library");
  EXPECT_NE(base, EvalIdentity("cpu", other, "full size"));
  other = o;
  ASSERT_TRUE(ApplyBaselines("eager", "--baselines", other).ok());
  EXPECT_NE(base, EvalIdentity("cpu", other, "full size"));
  other = o;
  other.seed = 7;
  EXPECT_NE(base, EvalIdentity("cpu", other, "full size"));
}

TEST(EvalIdentityTest, BaselinesAndRulesAreParsedOnceForEveryEntryPoint) {
  EvalOptions o;
  EXPECT_TRUE(ApplyBaselines("compile,eager", "--baselines", o).ok());
  EXPECT_TRUE(o.eager_baseline && o.compile_baseline && o.baselines_chosen);
  Status bad = ApplyBaselines("fast", "config.baselines", o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("config.baselines"), std::string::npos) << bad.message();
  EXPECT_EQ(ParseAllowedRules({"library"}, BuiltInLanguages()).value(),
            std::set<std::string>{"library"});
  auto unknown = ParseAllowedRules({"no_such_rule"}, BuiltInLanguages());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no_such_rule"), std::string::npos);
}

}  // namespace
}  // namespace hone
