// The CPU adversarial catalogue: every candidate in tests/adversarial/cpu/ gets
// the verdict tests/adversarial/cpu_expectations.txt names, on the task it
// names, in one worker that must stay healthy: after each hostile candidate
// the correct one is evaluated again and must pass. An entry the static lint
// catches is evaluated a second time with the lint off, and must get its
// dynamic verdict from the run-time checks alone. Each evaluation prints one
// "[verdict] file: status: reason" line, so the CI log is a record of what
// every hack got.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "support/builtin_tasks.h"
#include "task/task_loader.h"
#include "test_env.h"

namespace hone {
namespace {

using namespace hone::testing;

std::vector<Expectation> CpuCatalogue() {
  return LoadExpectations(SourceDir() / "tests/adversarial/cpu_expectations.txt");
}

std::filesystem::path CatalogueDir() { return SourceDir() / "tests/adversarial/cpu"; }

class AdversarialTest : public ::testing::TestWithParam<Expectation> {
 protected:
  static void SetUpTestSuite() { env_ = new TestEvaluator(TestEvaluator::Make()); }
  static void TearDownTestSuite() {
    delete env_;
    env_ = nullptr;
    tasks_.clear();
  }

  // The task an expectation names, loaded once per suite ("" is fixture_add).
  static const Task* TaskFor(const Expectation& e) {
    auto it = tasks_.find(e.task);
    if (it != tasks_.end()) return it->second.get();
    auto task = hone::testing::LoadBuiltInTask(ExpectationTask(SourceDir(), e));
    EXPECT_TRUE(task.ok()) << e.file << ": " << task.status().message();
    if (!task.ok()) return nullptr;
    return (tasks_[e.task] = std::make_unique<Task>(std::move(task).value())).get();
  }

  static Verdict Eval(const Task& task, const std::string& file, bool timed, bool lint = true) {
    EvalOptions o = VerifyOnly();
    if (timed) {
      // A small budget: the hacks act, or are caught, within a few calls. On task=heavy a
      // call takes ~3 ms, so the budget still gives the timer its 10 repetitions and more,
      // enough for a median that says whether a hack made the timing faster.
      o.time = true;
      o.flush = FlushMode::kLines;
      o.timing.budget_seconds = 0.2;
      o.timing.warmup_seconds = 0.01;
    }
    o.lint = lint;
    // A small memory limit, so the unbounded allocation reaches it long
    // before the call timeout even on a loaded machine: on a 2-core virtual
    // machine where a page fault costs 10-20 us under load, 512 MiB took
    // longer than the 2-s call timeout (a timeout, not the runtime_error of
    // the limit), hence 64 MiB and calls of up to 5 s.
    o.memory_limit_bytes = 64u << 20;
    o.min_call_timeout = std::chrono::seconds(5);
    auto v = env_->evaluator->Evaluate(task, CatalogueDir() / file, o);
    EXPECT_TRUE(v.ok()) << file << ": " << v.status().message();
    return v.ok() ? *v : Verdict{};
  }
  static Verdict Eval(const std::string& file, bool timed = false) {
    Expectation fixture_add;
    const Task* task = TaskFor(fixture_add);
    return task ? Eval(*task, file, timed) : Verdict{};
  }

  static TestEvaluator* env_;
  static std::map<std::string, std::unique_ptr<Task>> tasks_;
};

TestEvaluator* AdversarialTest::env_ = nullptr;
std::map<std::string, std::unique_ptr<Task>> AdversarialTest::tasks_;

// Prints "[tag] file: status: reason" and checks the verdict against the expected status and
// reason substring. A passed verdict on an entry with max_speedup must have been timed and be
// no faster than that: the hack was neutralised, not merely survived.
void ExpectVerdict(const char* tag, const Expectation& e, const Verdict& v,
                   const std::string& status, const std::string& reason) {
  std::string first_line = v.reason.substr(0, v.reason.find('\n'));
  std::cout << "[" << tag << "] " << e.file << (e.task.empty() ? "" : " (" + e.task + ")") << ": "
            << StatusName(v.status) << ": " << first_line.substr(0, 300);
  if (v.timing.candidate_time) std::cout << " [speedup " << v.timing.speedup << "x]";
  std::cout << std::endl;
  EXPECT_EQ(StatusName(v.status), status)
      << e.file << " (" << tag << ", expectations line " << e.line << "): " << v.reason;
  EXPECT_TRUE(ReasonMatches(v.reason, reason))
      << e.file << " (" << tag << "): reason '" << v.reason << "' lacks '" << reason << "'";
  if (e.max_speedup > 0 && status == "passed" && v.status == VerdictStatus::kPassed) {
    EXPECT_TRUE(v.timing.candidate_time.has_value())
        << e.file << ": max_speedup needs a timed entry";
    EXPECT_GT(v.timing.speedup, 0) << e.file << ": max_speedup needs a timed entry";
    EXPECT_LE(v.timing.speedup, e.max_speedup)
        << e.file << " (" << tag << "): the hack made its timing faster";
  }
}

TEST_P(AdversarialTest, GetsItsVerdictAndTheWorkerSurvives) {
  const Expectation& e = GetParam();
  const Task* task = TaskFor(e);
  ASSERT_NE(task, nullptr);
  Verdict v = Eval(*task, e.file, e.timed, /*lint=*/true);
  ExpectVerdict("verdict", e, v, e.status, e.reason);
  if (!e.dynamic_status.empty()) {
    // An entry with a lint-off verdict is one the static lint catches: the verdict must come
    // from the lint, and the run-time checks alone must still give the dynamic verdict.
    EXPECT_TRUE(ReasonMatches(v.reason, "lint"))
        << e.file << ": expected a lint rejection, got '" << v.reason << "'";
    Verdict d = Eval(*task, e.file, e.timed, /*lint=*/false);
    ExpectVerdict("verdict-dynamic", e, d, e.dynamic_status, e.dynamic_reason);
  }
  Verdict after = Eval("correct.cpp");
  EXPECT_EQ(after.status, VerdictStatus::kPassed) << "after " << e.file << ": " << after.reason;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, AdversarialTest, ::testing::ValuesIn(CpuCatalogue()),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

// Every candidate file has an expectation, every expectation names a file and a task that
// exist, and no file is listed twice.
TEST_F(AdversarialTest, ExpectationsCoverEveryCandidate) {
  auto list = CpuCatalogue();
  size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(CatalogueDir())) {
    ++files;
    auto n = std::count_if(list.begin(), list.end(), [&](const Expectation& e) {
      return e.file == f.path().filename().string();
    });
    EXPECT_EQ(n, 1) << f.path() << " has " << n << " expectations (one expected)";
  }
  for (const auto& e : list) {
    EXPECT_TRUE(std::filesystem::exists(CatalogueDir() / e.file))
        << "line " << e.line << ": " << e.file;
    EXPECT_TRUE(std::filesystem::exists(ExpectationTask(SourceDir(), e) / "task.toml"))
        << "line " << e.line << ": " << e.file << ": no task " << ExpectationTask(SourceDir(), e);
    if (e.max_speedup > 0) {
      EXPECT_TRUE(e.timed) << "line " << e.line << ": " << e.file << ": max_speedup needs timed";
    }
  }
  EXPECT_GE(files, 40u);
}

TEST_F(AdversarialTest, SandboxIsFullyInForce) {
  Verdict v = Eval("correct.cpp");
  EXPECT_TRUE(v.sandbox.missing.empty()) << v.sandbox.missing;
  EXPECT_NE(v.sandbox.features & 1u, 0u) << "seccomp not in force";
}

TEST_F(AdversarialTest, PrintFloodIsCapturedNotStored) {
  Verdict v = Eval("print_flood.cpp");
  EXPECT_GT(v.sandbox.output_bytes, 8u << 20);
  EXPECT_LE(v.sandbox.output_head.size(), 16u << 10);
}

// The two runs on one value set are compared through fingerprints of the
// outputs where they lie, not copies: a last-bit difference must show.
TEST_F(AdversarialTest, TwoRunsThatDifferBitwiseAreNoted) {
  for (const char* file : {"nondeterministic.cpp", "correct.cpp"}) {
    Verdict v = Eval(file);
    ASSERT_EQ(v.status, VerdictStatus::kPassed) << file << ": " << v.reason;
    // A note-like check: it passes, and says what differed.
    auto noted = std::count_if(v.checks.begin(), v.checks.end(), [](const auto& c) {
      return c.kind() == CheckKind::kDeterministic &&
             c.detail.find("differs bitwise") != std::string::npos;
    });
    if (std::string(file) == "correct.cpp")
      EXPECT_EQ(noted, 0);
    else
      EXPECT_GT(noted, 0) << "no 'deterministic' check noted";
  }
}

TEST_F(AdversarialTest, TimingProducesSpeedupAndSol) {
  Expectation fixture_add;
  const Task* task = TaskFor(fixture_add);
  ASSERT_NE(task, nullptr);
  EvalOptions o;
  o.timing.budget_seconds = 0.3;
  o.timing.warmup_seconds = 0.02;
  o.flush = FlushMode::kLines;
  auto v = env_->evaluator->Evaluate(*task, CatalogueDir() / "correct.cpp", o);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->timing.candidate_time.has_value());
  EXPECT_GE(v->timing.candidate_time->summary.count, 10);
  EXPECT_GT(v->timing.candidate_time->summary.median, 0);
  EXPECT_GT(v->timing.speedup, 0);
  EXPECT_GT(v->timing.sol_seconds, 0);
  EXPECT_EQ(v->timing.candidate_time->samples.size(),
            static_cast<size_t>(v->timing.candidate_time->summary.count));
}

}  // namespace
}  // namespace hone
