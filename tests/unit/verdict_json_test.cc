#include "verify/verdict_json.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

Verdict Sample() {
  Verdict v;
  v.status = VerdictStatus::kIncorrect;
  v.reason = "output 0 differs at [3]";
  v.task = "softmax";
  v.candidate = "c.cpp";
  v.build_log = "warning: x";
  v.build_seconds = 1.5;
  v.checks = {{"correct", "N=4 seed=1", false, "max error 3"}, {"inputs_unchanged", "", true, ""}};
  v.notes = {"a note"};
  v.precision_error = 1e-7;
  v.precision_bound = 1e-5;
  v.output_head = "hello";
  v.output_bytes = 5;
  v.total_seconds = 2;
  v.kernel_seconds = 0.5;
  v.stage_seconds = {{"build", 1.5}, {"verify", 0.4}};
  v.machine.cpu_model = "Test CPU";
  v.machine.cores = 2;
  TimingResult t;
  t.summary.median = 2e-3;
  t.summary.ci_low = 1.9e-3;
  t.summary.ci_high = 2.1e-3;
  t.summary.count = 3;
  t.samples = {1.9e-3, 2e-3, 2.1e-3};
  v.timed_case = "N=4096";
  v.candidate_time = t;
  t.summary.median = 4e-3;
  v.reference_time = t;
  v.compile_time = t;
  v.speedup = 2;
  v.speedup_low = 0.9;
  v.speedup_high = 2.2;
  v.speedup_unresolved = "its 95% interval 0.90x .. 2.20x includes 1";
  v.speedup_pairs = {1.9, 2.0, 2.1};
  v.speedup_compile = 2;
  v.sol_percent = 12.5;
  v.shapes = "N=4096";
  return v;
}

TEST(VerdictJsonTest, RoundTripsThroughJson) {
  nlohmann::json j = VerdictToJson(Sample());
  auto back = VerdictFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(VerdictToJson(*back), j);
  EXPECT_EQ(back->status, VerdictStatus::kIncorrect);
  EXPECT_DOUBLE_EQ(back->candidate_time->summary.median, 2e-3);
  EXPECT_EQ(back->checks_failed(), 1);
  EXPECT_DOUBLE_EQ(back->speedup_high, 2.2);
  EXPECT_EQ(back->speedup_unresolved, "its 95% interval 0.90x .. 2.20x includes 1");
  EXPECT_FALSE(j["timing"]["speedup_resolved"].get<bool>());
  EXPECT_EQ(back->speedup_pairs, (std::vector<double>{1.9, 2.0, 2.1}));
}

TEST(VerdictJsonTest, RefusesWhatIsNotAVerdict) {
  EXPECT_FALSE(VerdictFromJson(nlohmann::json::array()).ok());
  EXPECT_FALSE(VerdictFromJson({{"status", "splendid"}}).ok());
  EXPECT_FALSE(VerdictFromJson({{"status", "passed"}, {"checks", 3}}).ok());
  EXPECT_EQ(ParseStatusName("compile_error"), VerdictStatus::kCompileError);
}

TEST(VerdictJsonTest, TuningRoundTrips) {
  Verdict v = Sample();
  v.tuned_params = "BLOCK=128";
  v.tune_trials = {{"BLOCK=64", VerdictStatus::kPassed, 2e-6, ""},
                   {"BLOCK=128", VerdictStatus::kPassed, 1e-6, ""},
                   {"BLOCK=256", VerdictStatus::kIncorrect, 0, "max abs error 1"}};
  nlohmann::json j = VerdictToJson(v);
  EXPECT_EQ(j["tuning"]["params"], "BLOCK=128");
  EXPECT_EQ(j["tuning"]["trials"][2]["status"], "incorrect");
  auto back = VerdictFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(VerdictToJson(*back), j);
  EXPECT_FALSE(VerdictToJson(Sample()).contains("tuning"));
}

}  // namespace
}  // namespace hone
