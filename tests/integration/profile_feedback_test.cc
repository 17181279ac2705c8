// The profiler on the CPU backend end to end: `hone eval --metrics` reads
// the candidate sandbox's counters and diagnoses them, and a search feeds
// the diagnosis of a passing candidate into the next prompt and the
// attempt record.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/fs.h"
#include "integration/fixture_kernels.h"
#include "integration/test_env.h"
#include "search/optimizer.h"
#include "support/builtin_tasks.h"
#include "support/fake_llm_server.h"
#include "task/task_loader.h"

namespace hone {
namespace {

using namespace hone::testing;

std::string Softmax() { return (SourceDir() / "tasks/examples/softmax").string(); }
std::string Solution(const char* name) {
  return (SourceDir() / "tasks/examples/softmax/solutions" / name).string();
}

TEST(ProfileEvalTest, MetricsNameASingleThreadedKernelAndTheirCost) {
  auto r = RunHone({"eval", Softmax(), Solution("naive.cpp"), "--metrics", "--json",
                    "--time-budget", "0.2", "--warmup", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["status"], "passed") << j.dump(1);
  ASSERT_TRUE(j.contains("profile")) << j.dump(1);
  const auto& p = j["profile"];
  EXPECT_EQ(p["not_run"], "") << p.dump(1);
  EXPECT_EQ(p["tool"], "perf_event");
  EXPECT_GE(p["calls"].get<int>(), 3);
  EXPECT_GT(p["summary"]["cpu_seconds"].get<double>(), 0);
  EXPECT_GT(p["summary"]["wall_seconds"].get<double>(), 0);
  EXPECT_GT(p["seconds"].get<double>(), 0) << "what profiling cost";
  EXPECT_FALSE(p["diagnosis"]["label"].get<std::string>().empty());
  EXPECT_FALSE(p["diagnosis"]["fix"].get<std::string>().empty());
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_EQ(p["diagnosis"]["label"], "single-threaded") << p.dump(1);
  }
  bool stage = false;
  for (const auto& [name, seconds] : j["seconds"].items()) stage |= name == "profile";
  EXPECT_TRUE(stage) << j["seconds"].dump();
}

TEST(ProfileEvalTest, WithoutTheFlagNothingIsProfiled) {
  auto r = RunHone({"eval", Softmax(), Solution("naive.cpp"), "--json", "--time-budget", "0.2",
                    "--warmup", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(nlohmann::json::parse(r.output).contains("profile"));
}

TEST(ProfileEvalTest, TheTerminalSummaryShowsTheDiagnosis) {
  auto r = RunHone({"eval", Softmax(), Solution("naive.cpp"), "--metrics", "--time-budget", "0.2",
                    "--warmup", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("profile (perf_event"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("likely fix: "), std::string::npos) << r.output;
}

TEST(ProfileFeedbackTest, TheNextTurnCarriesTheDiagnosis) {
  FakeLlmServer server;
  ASSERT_TRUE(server.Start().ok());
  for (int i = 0; i < 2; ++i)
    server.Enqueue(FakeResponse{200, {}, OpenAiReply("```cpp\n" + FastKernel() + "```")});
  auto model = ParseModelSpec("openai-compatible:fake-model", server.base_url());
  ASSERT_TRUE(model.ok());
  Provider provider(*model, MakeCurlHttpClient(), RetryPolicy{}, PriceTable::Defaults(), 1);
  auto task = hone::testing::LoadBuiltInTask(SourceDir() / "tests/integration/fixture_add");
  ASSERT_TRUE(task.ok()) << task.status().message();
  auto prompts =
      PromptBuilder::Load(SourceDir() / "prompts", SourceDir() / "include", BuiltInLanguages());
  ASSERT_TRUE(prompts.ok());
  TestEvaluator env = TestEvaluator::Make();
  auto run_dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-profile-feedback");
  ASSERT_TRUE(run_dir.ok());
  OptimizeOptions o;
  o.strategy.name = "refine";
  o.strategy.params.Set("chains", 1);
  o.strategy.params.Set("turns", 2);
  o.llm_concurrency = 1;
  o.eval.timing.budget_seconds = 0.2;
  o.eval.timing.min_reps = 5;
  o.eval.flush = FlushMode::kNone;
  o.eval.metrics = true;
  o.run_dir = *run_dir;
  Optimizer optimizer(*task, env.cpu(), provider, *prompts, *env.evaluator, o);
  auto result = optimizer.Run();
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->passed, 2);

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("profiler (perf_event"), std::string::npos) << requests[1].body;
  EXPECT_NE(requests[1].body.find("likely fix: "), std::string::npos) << requests[1].body;

  std::ifstream in(*run_dir / "attempts.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  auto attempt = nlohmann::json::parse(line);
  EXPECT_EQ(attempt["verdict"]["profile"]["tool"], "perf_event") << line;
  std::filesystem::remove_all(*run_dir);
}

}  // namespace
}  // namespace hone
