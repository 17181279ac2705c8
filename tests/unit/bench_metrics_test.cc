// KernelBench's metrics on hand-computed examples.
#include "report/bench_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hone {
namespace {

TaskOutcome Passed(const std::string& task, double speedup,
                   std::optional<double> compile = std::nullopt) {
  TaskOutcome o;
  o.task = task;
  o.passed = true;
  o.speedup = speedup;
  o.speedup_compile = compile;
  o.sol_percent = 10 * speedup;
  return o;
}

TaskOutcome Failed(const std::string& task) {
  TaskOutcome o;
  o.task = task;
  return o;
}

TEST(BenchMetricsTest, PassAtKIsTheUnbiasedEstimator) {
  EXPECT_DOUBLE_EQ(PassAtKEstimate(5, 2, 1), 0.4);
  EXPECT_NEAR(PassAtKEstimate(5, 2, 2), 0.7, 1e-12);  // 1 - C(3,2)/C(5,2)
  EXPECT_DOUBLE_EQ(PassAtKEstimate(5, 0, 3), 0.0);
  EXPECT_DOUBLE_EQ(PassAtKEstimate(5, 4, 2), 1.0);  // n - c < k
}

TEST(BenchMetricsTest, FastPCountsMissingAndIncorrectTasksAsFailed) {
  std::vector<SuiteTask> tasks = {
      {"a", "a", "level1"}, {"b", "b", "level1"}, {"c", "c", "level2"}, {"d", "d", "level2"}};
  // a: best 2.5x (and a slower passed one); b: 0.9x; c: only incorrect; d: no attempt.
  std::vector<TaskOutcome> outcomes = {Passed("a", 1.2), Passed("a", 2.5), Failed("a"),
                                       Passed("b", 0.9), Failed("c"),      Failed("c")};
  BenchMetrics m = ComputeMetrics(tasks, outcomes);
  EXPECT_EQ(m.tasks, 4);
  EXPECT_EQ(m.tasks_attempted, 3);
  EXPECT_EQ(m.tasks_correct, 2);
  EXPECT_EQ(m.attempts, 6);
  EXPECT_DOUBLE_EQ(m.correctness_rate, 0.5);
  ASSERT_EQ(m.fast_p.size(), 6u);
  EXPECT_DOUBLE_EQ(m.fast_p[0].eager, 0.5);       // p = 0: correct
  EXPECT_DOUBLE_EQ(m.fast_p[2].eager, 0.5);       // p = 0.8
  EXPECT_DOUBLE_EQ(m.fast_p[3].eager, 0.25);      // p = 1: strictly faster
  EXPECT_DOUBLE_EQ(m.fast_p[5].eager, 0.25);      // p = 2
  EXPECT_FALSE(m.fast_p[0].compile.has_value());  // nothing had a torch.compile time
  EXPECT_NEAR(*m.geomean_speedup, std::sqrt(2.5 * 0.9), 1e-12);
  EXPECT_NEAR(m.geomean_speedup_all_tasks, std::pow(2.5 * 0.9, 0.25), 1e-12);
  // The fewest attempts on an attempted task is 1 (b): pass@1 only.
  ASSERT_EQ(m.pass_at_k.size(), 1u);
  EXPECT_NEAR(m.pass_at_k[0].value, (2.0 / 3 + 1 + 0 + 0) / 4, 1e-12);
  ASSERT_TRUE(m.sol_percent.has_value());
  EXPECT_DOUBLE_EQ(m.sol_percent->max, 25);

  SuiteMetrics s = ComputeSuiteMetrics(tasks, outcomes);
  ASSERT_EQ(s.by_category.size(), 2u);
  EXPECT_DOUBLE_EQ(s.by_category["level1"].fast_p[3].eager, 0.5);
  EXPECT_DOUBLE_EQ(s.by_category["level2"].fast_p[0].eager, 0.0);
  EXPECT_NE(SuiteMetricsTable(s).find("level2"), std::string::npos);
  EXPECT_EQ(SuiteMetricsToJson(s)["by_category"]["level1"]["tasks"], 2);
}

// A busy evaluation (a shared GPU left a check undecided) is not an
// attempt: it neither fails its task nor counts toward pass@k, and the
// table says how many there were.
TEST(BenchMetricsTest, BusyEvaluationsAreNotAttempts) {
  std::vector<SuiteTask> tasks = {{"a", "a", "level1"}, {"b", "b", "level1"}};
  TaskOutcome busy = Passed("b", 5.0);
  busy.passed = false;
  busy.decided = false;
  std::vector<TaskOutcome> outcomes = {Passed("a", 1.5), busy, Failed("b")};
  BenchMetrics m = ComputeMetrics(tasks, outcomes);
  EXPECT_EQ(m.attempts, 2);
  EXPECT_EQ(m.not_decided, 1);
  EXPECT_EQ(m.tasks_attempted, 2);
  EXPECT_DOUBLE_EQ(m.correctness_rate, 0.5);
  EXPECT_DOUBLE_EQ(m.fast_p[3].eager, 0.5);
  SuiteMetrics s = ComputeSuiteMetrics(tasks, outcomes);
  EXPECT_NE(SuiteMetricsTable(s).find("not decided (GPU busy)"), std::string::npos);
  EXPECT_EQ(MetricsToJson(m)["not_decided"], 1);
  // Only busy: the task was not attempted at all.
  BenchMetrics only = ComputeMetrics(tasks, {busy});
  EXPECT_EQ(only.tasks_attempted, 0);
  EXPECT_EQ(only.attempts, 0);
}

// Issue 15: solved but never timed (--no-time) is "not timed", not 0% and 1x.
TEST(BenchMetricsTest, SolvedButUntimedSaysNotTimed) {
  std::vector<SuiteTask> tasks = {{"a", "a", ""}, {"b", "b", ""}};
  TaskOutcome untimed;
  untimed.task = "a";
  untimed.passed = true;
  SuiteMetrics s = ComputeSuiteMetrics(tasks, {untimed, Failed("b")});
  EXPECT_FALSE(s.all.timed);
  nlohmann::json j = SuiteMetricsToJson(s);
  EXPECT_EQ(j["timed"], false);
  EXPECT_TRUE(j["fast_p"][3]["eager"].is_null()) << j.dump();
  EXPECT_TRUE(j["geomean_speedup"].is_null());
  EXPECT_TRUE(j["geomean_speedup_all_tasks"].is_null());
  EXPECT_EQ(j["tasks_correct"], 1);
  std::string table = SuiteMetricsTable(s);
  auto row = [&](const std::string& label) {
    size_t at = table.find(label);
    return at == std::string::npos ? "" : table.substr(at, table.find('\n', at) - at);
  };
  for (const char* label : {"fast_0 eager", "fast_1 eager", "geomean speedup (solved)",
                            "geomean (all, unsolved 1x)", "SOL% median"})
    EXPECT_NE(row(label).find("not timed"), std::string::npos) << label << "\n" << table;
  EXPECT_NE(row("tasks solved").find("50.0%"), std::string::npos) << table;  // still known
  // Timed, or nothing solved: the speed metrics are numbers.
  EXPECT_TRUE(ComputeMetrics(tasks, {Passed("a", 2.0), untimed}).timed);
  BenchMetrics none = ComputeMetrics(tasks, {Failed("a")});
  EXPECT_TRUE(none.timed);
  EXPECT_EQ(MetricsToJson(none)["fast_p"][0]["eager"], 0.0);
}

TEST(BenchMetricsTest, CompileFastPWhenCompileWasTimed) {
  std::vector<SuiteTask> tasks = {{"a", "a", ""}, {"b", "b", ""}};
  BenchMetrics m = ComputeMetrics(tasks, {Passed("a", 3.0, 1.5), Passed("b", 2.0)});
  ASSERT_TRUE(m.fast_p[3].compile.has_value());
  EXPECT_DOUBLE_EQ(*m.fast_p[3].compile, 0.5);  // b had no compile time: failed
  EXPECT_DOUBLE_EQ(m.fast_p[3].eager, 1.0);
  EXPECT_DOUBLE_EQ(*m.geomean_speedup_compile, 1.5);
}

}  // namespace
}  // namespace hone
