// A device added in a folder of its own (tests/backends/testdev/), not the
// CPU's: its tasks name it, its memory is its own arena and trusted store,
// it builds with its own builder, and it is registered from this test only.
// The evaluator, `hone bench`'s planning and scheduling (src/bench/) and
// `hone serve`'s job path (serve/job_evaluator.h) run on it end to end,
// and nothing in src/ names it.
#include <gtest/gtest.h>

#include "backends/testdev/testdev_backend.h"
#include "bench/listener.h"
#include "bench/plan.h"
#include "bench/scheduler.h"
#include "core/fs.h"
#include "format/builtin_formats.h"
#include "serve/job_evaluator.h"
#include "serve/job_files.h"
#include "session/eval_context.h"
#include "support/builtin_tasks.h"
#include "task/task_loader.h"
#include "test_env.h"

namespace hone {
namespace test_device_test {

using namespace hone::testing;

// The CPU backend (the host's, always open) and the test device, opened;
// C++ runs on both, the CPU first.
struct TestDev {
  std::shared_ptr<TestDevCounts> counts = std::make_shared<TestDevCounts>();
  EvaluatorEnv env = TestCpuEnv();
  TestDev() {
    RegisterTestDevBackend(env.backends, BinaryDir() / "hone-sandbox", counts);
    EXPECT_TRUE(RunCppOnTestDev(env.languages).ok());
    auto opened = env.backends.Open(kTestDevBackend, BackendSetup{TestCache(), 0});
    EXPECT_TRUE(opened.ok()) << opened.status().message();
  }
  Task LoadAdd() const {
    return std::move(LoadNativeTask(Suite() / "add", TaskDevicesOf(env.backends))).value();
  }
  static std::filesystem::path Suite() { return SourceDir() / "tests/backends/testdev/suite"; }
  static std::filesystem::path Solution(const std::string& name) {
    return Suite() / "add/solutions" / name;
  }
};

TEST(TestDeviceTest, ItsTasksNameItWhereItIsRegistered) {
  TestDev dev;
  // Without the test device's registration, its task does not load: its
  // reference's key and its cases' device are unknown.
  auto builtin = hone::testing::LoadBuiltInTask(TestDev::Suite() / "add");
  ASSERT_FALSE(builtin.ok());
  EXPECT_NE(builtin.status().message().find("testdev_reference: unknown field"), std::string::npos)
      << builtin.status().message();
  Task task = dev.LoadAdd();
  ASSERT_EQ(task.CasesFor(kTestDevBackend).size(), 2u);
  EXPECT_EQ(task.CasesFor(kTestDevBackend)[1]->label, "N=1025 [testdev]");
  ASSERT_EQ(task.CasesFor("cpu").size(), 2u);
  EXPECT_EQ(task.CasesFor("cpu")[1]->label, "N=33 [cpu]");
  EXPECT_EQ(task.ReferenceFor(kTestDevBackend).value(), TestDev::Suite() / "add/reference.cpp");
}

TEST(TestDeviceTest, TheEvaluatorRunsOnItsArenaAndItsStore) {
  TestDev dev;
  Evaluator evaluator(dev.env);
  EvalOptions o = VerifyOnly();
  o.backend = kTestDevBackend;
  auto v = evaluator.Evaluate(dev.LoadAdd(), TestDev::Solution("correct.cpp"), o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  EXPECT_EQ(v->backend, kTestDevBackend);
  // Its arenas (the candidate's and the reference's), its staged writes
  // completed before the calls, its store's comparisons.
  EXPECT_GE(dev.counts->arenas.load(), 2);
  EXPECT_GT(dev.counts->staged_writes.load(), 0);
  EXPECT_GT(dev.counts->syncs.load(), 0);
  EXPECT_GE(dev.counts->stores.load(), 1);
  EXPECT_GT(dev.counts->compares.load(), 0);
  // Its own builder built the candidate, keyed apart from the CPU's.
  auto build =
      dev.env.backends.Find(kTestDevBackend)->builder().Build(TestDev::Solution("correct.cpp"));
  ASSERT_TRUE(build.ok()) << build.status().message();
  EXPECT_TRUE(build->cached);
  EXPECT_NE(build->command.find("-O1"), std::string::npos) << build->command;

  auto wrong = evaluator.Evaluate(dev.LoadAdd(), TestDev::Solution("wrong.cpp"), o);
  ASSERT_TRUE(wrong.ok()) << wrong.status().message();
  EXPECT_EQ(wrong->status, VerdictStatus::kIncorrect) << wrong->reason;

  // Unasked, a C++ candidate runs on the CPU, the first of its devices, and
  // the test device's memory is not touched.
  const int arenas = dev.counts->arenas.load();
  auto cpu = evaluator.Evaluate(dev.LoadAdd(), TestDev::Solution("correct.cpp"), VerifyOnly());
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(cpu->status, VerdictStatus::kPassed) << cpu->reason;
  EXPECT_EQ(cpu->backend, "cpu");
  EXPECT_EQ(dev.counts->arenas.load(), arenas);
}

// A passing candidate's profile is measured by the device's own profiler
// (Backend::MakeProfiler), which names its tool in the verdict.
TEST(TestDeviceTest, ItsProfilerMeasuresAPassingCandidate) {
  TestDev dev;
  Evaluator evaluator(dev.env);
  EvalOptions o = VerifyOnly();
  o.backend = kTestDevBackend;
  o.time = true;
  o.metrics = true;
  o.timing.budget_seconds = 0.2;
  o.timing.warmup_seconds = 0.01;
  auto v = evaluator.Evaluate(dev.LoadAdd(), TestDev::Solution("correct.cpp"), o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->profile.has_value());
  EXPECT_EQ(v->profile->not_run, "");
  EXPECT_EQ(v->profile->tool, "testdev-counters");
  EXPECT_GE(v->profile->calls, 3);
  EXPECT_EQ(dev.counts->profiles.load(), 1);
}

// What a bench hears: each unit's verdict.
class Verdicts : public BenchListener {
 public:
  void UnitDone(const BenchUnit& unit, const Verdict& v) override {
    got[unit.candidate.filename().string()] = v;
  }
  void TaskProblem(const std::string& message) override { problems += message + "\n"; }
  std::map<std::string, Verdict> got;
  std::string problems;
};

TEST(TestDeviceTest, ABenchPlansAndEvaluatesItsSuiteOnIt) {
  TestDev dev;
  auto dir = MakeTempDir(TestCache() / "tmp", "testdev-bench");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  auto store = Store::Open(*dir / "runs.db");
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto run = (*store)->CreateRun("bench", "{}", "testdev");
  ASSERT_TRUE(run.ok()) << run.status().message();
  // As `hone bench --backend testdev` would plan it, were the device built in:
  // the context's registry loads the tasks and says which files are solutions.
  EvalContext ctx;
  ctx.env = dev.env;
  BenchTaskLoader load = [&](const std::filesystem::path& path) {
    return LoadTask(ctx, path.string(), kTestDevBackend, SizePolicy{});
  };
  Verdicts listener;
  auto plan =
      PlanSuite(BuiltInFormats(), TestDev::Suite(),
                SuiteLayout{kTestDevBackend,
                            SolutionsFor(kTestDevBackend, ctx.env.languages, ctx.env.backends),
                            {},
                            {}},
                load, **store, *run, listener);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->units.size(), 2u) << listener.problems;
  Evaluator evaluator(ctx.env);
  BenchTally tally;
  EvalOptions o = VerifyOnly();
  o.backend = kTestDevBackend;
  BenchScheduler scheduler(BenchRunInfo{store->get(), *run, false, "testdev", false},
                           *ctx.env.backends.Find(kTestDevBackend), evaluator, o, listener, tally);
  ASSERT_TRUE(scheduler.Run(*plan).ok());
  ASSERT_EQ(listener.got.size(), 2u) << listener.problems;
  EXPECT_EQ(listener.got["correct.cpp"].status, VerdictStatus::kPassed)
      << listener.got["correct.cpp"].reason;
  EXPECT_EQ(listener.got["wrong.cpp"].status, VerdictStatus::kIncorrect)
      << listener.got["wrong.cpp"].reason;
  for (const auto& [file, v] : listener.got) EXPECT_EQ(v.backend, kTestDevBackend) << file;
  EXPECT_EQ(tally.passed, 1);
  EXPECT_GT(dev.counts->compares.load(), 0);
  std::filesystem::remove_all(*dir);
}

TEST(TestDeviceTest, AServedJobRunsOnAWorkerOfIt) {
  TestDev dev;
  auto scratch = MakeTempDir(TestCache() / "tmp", "testdev-serve");
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  auto ctx = std::make_unique<EvalContext>();
  ctx->env = dev.env;
  const LanguageRegistry languages = ctx->env.languages;
  WorkerEvalSetup setup;
  setup.backend = kTestDevBackend;  // `hone worker --backend testdev`
  setup.options = VerifyOnly();
  setup.formats = &BuiltInFormats();
  ContextJobEvaluator jobs(std::move(ctx), setup);

  EvalJob job;
  job.id = "testdev-job";
  job.problem_name = "add";
  job.candidate_kind = "cpp";
  job.candidate_code = *ReadFile(TestDev::Solution("correct.cpp")) + "\n// served\n";
  auto files = JobFiles::Write(job, TestDev::Suite(), *scratch, BuiltInFormats(), languages);
  ASSERT_TRUE(files.ok()) << files.status().message();
  auto v = jobs.Evaluate(job, *files);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  EXPECT_EQ(v->backend, kTestDevBackend);
  EXPECT_GT(dev.counts->compares.load(), 0);

  // A job that asks for the CPU runs on the host's backend the worker has too.
  EvalJob on_cpu = job;
  on_cpu.id = "testdev-job-cpu";
  on_cpu.config["backend"] = "cpu";
  auto cpu_files = JobFiles::Write(on_cpu, TestDev::Suite(), *scratch, BuiltInFormats(), languages);
  ASSERT_TRUE(cpu_files.ok()) << cpu_files.status().message();
  auto cpu = jobs.Evaluate(on_cpu, *cpu_files);
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(cpu->status, VerdictStatus::kPassed) << cpu->reason;
  EXPECT_EQ(cpu->backend, "cpu");
  std::filesystem::remove_all(*scratch);
}

}  // namespace test_device_test
}  // namespace hone
