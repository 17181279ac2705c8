// Every candidate in candidates/ gets the verdict expectations.txt names, in
// one worker that must stay healthy: after each hostile candidate the correct
// one is evaluated again and must pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "task/task_loader.h"
#include "test_env.h"

namespace hone {
namespace {

using namespace hone::testing;

std::vector<Expectation> CpuCatalogue() {
  return LoadExpectations(SourceDir() / "tests/adversarial/cpu_expectations.txt");
}

class AdversarialTest : public ::testing::TestWithParam<Expectation> {
 protected:
  static void SetUpTestSuite() {
    env_ = new TestEvaluator(TestEvaluator::Make());
    task_ =
        new Task(std::move(LoadNativeTask(SourceDir() / "tests/integration/fixture_add")).value());
  }
  static void TearDownTestSuite() {
    delete env_;
    delete task_;
  }
  static Verdict Eval(const std::string& file, bool timed = false) {
    // A small memory limit, so the unbounded allocation reaches it long
    // before the call timeout even on a loaded machine.
    EvalOptions o = VerifyOnly();
    if (timed) {
      o.time = true;
      o.flush = FlushMode::kLines;
      o.timing.budget_seconds = 0.2;
      o.timing.warmup_seconds = 0.01;
    }
    o.memory_limit_bytes = 512u << 20;
    auto v =
        env_->evaluator->Evaluate(*task_, SourceDir() / "tests/adversarial/cpu" / file, o);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : Verdict{};
  }
  static TestEvaluator* env_;
  static Task* task_;
};

TestEvaluator* AdversarialTest::env_ = nullptr;
Task* AdversarialTest::task_ = nullptr;

TEST_P(AdversarialTest, GetsItsVerdictAndTheWorkerSurvives) {
  const Expectation& e = GetParam();
  Verdict v = Eval(e.file, e.timed);
  EXPECT_EQ(StatusName(v.status), e.status) << e.file << ": " << v.reason;
  EXPECT_TRUE(ReasonMatches(v.reason, e.reason))
      << e.file << ": reason '" << v.reason << "' lacks '" << e.reason << "'";
  Verdict after = Eval("correct.cpp");
  EXPECT_EQ(after.status, VerdictStatus::kPassed) << "after " << e.file << ": " << after.reason;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, AdversarialTest, ::testing::ValuesIn(CpuCatalogue()),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

TEST_F(AdversarialTest, ExpectationsCoverEveryCandidate) {
  auto list = CpuCatalogue();
  size_t files = 0;
  for (const auto& f :
       std::filesystem::directory_iterator(SourceDir() / "tests/adversarial/cpu")) {
    ++files;
    bool listed = std::any_of(list.begin(), list.end(), [&](const Expectation& e) {
      return e.file == f.path().filename().string();
    });
    EXPECT_TRUE(listed) << f.path() << " has no expectation";
  }
  EXPECT_GE(files, 15u);
}

TEST_F(AdversarialTest, SandboxIsFullyInForce) {
  Verdict v = Eval("correct.cpp");
  EXPECT_TRUE(v.sandbox_missing.empty()) << v.sandbox_missing;
  EXPECT_NE(v.sandbox_features & 1u, 0u) << "seccomp not in force";
}

TEST_F(AdversarialTest, PrintFloodIsCapturedNotStored) {
  Verdict v = Eval("print_flood.cpp");
  EXPECT_GT(v.output_bytes, 8u << 20);
  EXPECT_LE(v.output_head.size(), 16u << 10);
}

TEST_F(AdversarialTest, TimingProducesSpeedupAndSol) {
  EvalOptions o;
  o.timing.budget_seconds = 0.3;
  o.timing.warmup_seconds = 0.02;
  o.flush = FlushMode::kLines;
  auto v = env_->evaluator->Evaluate(*task_,
                                     SourceDir() / "tests/adversarial/cpu/correct.cpp", o);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->candidate_time.has_value());
  EXPECT_GE(v->candidate_time->summary.count, 10);
  EXPECT_GT(v->candidate_time->summary.median, 0);
  EXPECT_GT(v->speedup, 0);
  EXPECT_GT(v->sol_seconds, 0);
  EXPECT_EQ(v->candidate_time->samples.size(),
            static_cast<size_t>(v->candidate_time->summary.count));
}

}  // namespace
}  // namespace hone
