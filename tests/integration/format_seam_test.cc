// The task format is one seam (format/task_format.h): a format added in a
// folder of its own (tests/formats/toy/) is recognised by path, split into
// parts, laid out as a suite and evaluated by the same code as hone's own
// formats, with nothing outside its folder naming it. Its problems run on
// the CPU with Debian's torch; the evaluations skip, with the reason, where
// no python3 imports torch.
#include <gtest/gtest.h>

#include "format/flashinfer_format.h"
#include "format/legacy_formats.h"
#include "formats/toy/toy_format.h"
#include "task/oracle_service.h"
#include "test_env.h"

namespace hone {
namespace {
// Its own namespace: this file's helpers may share a name with another
// file's in the same unity unit.
namespace format_seam_test {

using namespace hone::testing;

// As format/builtin_formats.cc registers them, with the toy format before
// the legacy layouts (whose test, any .py in a subfolder, a toy suite's
// solution folders would pass): the more specific claim first.
FormatRegistry Formats() {
  FormatRegistry r;
  r.Register(FlashInferTraceFormat());
  r.Register(ToyFormat());
  r.Register(NativeTaskFormat());
  r.Register(KernelBenchFormat());
  return r;
}

TEST(FormatSeamTest, ANewFormatIsFoundByPathAndNamedInMessages) {
  FormatRegistry formats = Formats();
  auto toy = formats.ForProblem(ToyDir() / "suite/relu_scale.toy");
  ASSERT_TRUE(toy.ok()) << toy.status().message();
  EXPECT_EQ((*toy)->name(), kToyFormat);
  EXPECT_EQ(formats.ForSuite(ToyDir() / "suite"), *toy);
  // hone's own formats keep their paths.
  EXPECT_EQ(formats.ForProblem(SourceDir() / "tasks/pytorch/row_sum.py").value()->name(),
            "kernelbench");
  EXPECT_EQ(formats.ForProblem(SourceDir() / "tests/integration/fixture_add").value()->name(),
            "native");
  auto unknown = formats.ForProblem(ToyDir() / "toy_format.h");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("a toy problem (.toy)"), std::string::npos)
      << unknown.status().message();
}

TEST(FormatSeamTest, ANewFormatsSuiteIsEvaluatedLikeAnyOther) {
  FormatRegistry formats = Formats();
  EvaluatorEnv env = TestCpuEnv();
  SuiteLayout layout;
  layout.backend = "cpu";
  layout.is_solution = [&](const std::filesystem::path& f) {
    auto l = env.languages.ForFile(f);
    return l.ok() && (*l)->run.RunsOn("cpu");
  };
  auto entries = DiscoverSuiteOf(formats, ToyDir() / "suite", layout);
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].solutions.size(), 2u);
  EXPECT_EQ((*entries)[1].solutions.size(), 1u);

  OracleOptions o;
  o.script = SourceDir() / "python" / "hone_oracle.py";
  auto oracle = OracleService::Start("cpu", o);
  if (!oracle.ok()) GTEST_SKIP() << "oracle unavailable: " << oracle.status().message();
  Evaluator evaluator(env, oracle->get());
  std::map<std::string, VerdictStatus> got;
  for (const SuiteEntry& e : *entries) {
    auto task = (*oracle)->Load(e.task, {});
    if (!task.ok() && task.status().code() == StatusCode::kUnavailable)
      GTEST_SKIP() << task.status().message();
    ASSERT_TRUE(task.ok()) << task.status().message();
    EXPECT_EQ(task->category, "toy") << "hone_task names it";
    for (const auto& s : e.solutions) {
      EvalOptions options = VerifyOnly();
      options.backend = "cpu";
      options.lint_allow.insert("library");  // the ModelNew files call torch: the point here
      auto v = evaluator.Evaluate(*task, s, options);
      ASSERT_TRUE(v.ok()) << v.status().message();
      got[task->name + "/" + s.filename().string()] = v->status;
    }
  }
  EXPECT_EQ(got["relu_scale/right.py"], VerdictStatus::kPassed);
  EXPECT_EQ(got["relu_scale/wrong.py"], VerdictStatus::kIncorrect);
  EXPECT_EQ(got["square/right.cpp"], VerdictStatus::kPassed);
}

}  // namespace format_seam_test
}  // namespace
}  // namespace hone
