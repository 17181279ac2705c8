// The search loop end to end on a CPU task, driven by a fake LLM server on
// loopback speaking both APIs: every strategy, compiler errors fed back, the
// faster of two correct kernels chosen, and every kind of LLM failure
// handled without losing an attempt.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/fs.h"
#include "core/paths.h"
#include "integration/fixture_kernels.h"
#include "integration/kill_midrun.h"
#include "integration/test_env.h"
#include "search/optimizer.h"
#include "search/run_record.h"
#include "store/store.h"
#include "support/builtin_tasks.h"
#include "support/fake_llm_server.h"
#include "task/task_loader.h"

namespace hone {
namespace {

using namespace hone::testing;

std::string Fenced(const std::string& code) {
  return "Here is the kernel.\n\n```cpp\n" + code + "```\nIt should be fast.";
}

FakeResponse Ok(const std::string& body) { return FakeResponse{200, {}, body}; }

std::string FixtureAddDir() { return (SourceDir() / "tests/integration/fixture_add").string(); }

class OptimizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    env_ = TestEvaluator::Make();
    auto task = hone::testing::LoadBuiltInTask(SourceDir() / "tests/integration/fixture_add");
    ASSERT_TRUE(task.ok()) << task.status().message();
    task_ = *task;
    auto prompts =
        PromptBuilder::Load(SourceDir() / "prompts", SourceDir() / "include", BuiltInLanguages());
    ASSERT_TRUE(prompts.ok()) << prompts.status().message();
    prompts_ = std::make_unique<PromptBuilder>(std::move(prompts).value());
    run_dir_ = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-optimize");
  }

  std::unique_ptr<Provider> MakeProvider(const std::string& spec, int concurrency) {
    auto model = ParseModelSpec(spec, server_.base_url());
    EXPECT_TRUE(model.ok()) << model.status().message();
    RetryPolicy retry;
    retry.max_attempts = 6;
    return std::make_unique<Provider>(*model, MakeCurlHttpClient(), retry, PriceTable::Defaults(),
                                      concurrency, [this](double s) { sleeps_.push_back(s); });
  }

  OptimizeResult Optimize(Provider& provider, StrategyOptions strategy, Budget budget = {},
                          int concurrency = 1, std::vector<TaskPart> parts = {}) {
    OptimizeOptions o;
    o.parts = std::move(parts);
    o.strategy = strategy;
    o.budget = budget;
    o.llm_concurrency = concurrency;
    o.eval.timing.budget_seconds = 0.2;
    o.eval.timing.min_reps = 5;
    o.eval.flush = FlushMode::kNone;
    o.run_dir = run_dir_;
    Optimizer optimizer(task_, env_.cpu(), provider, *prompts_, *env_.evaluator, o);
    auto r = optimizer.Run();
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : OptimizeResult{};
  }

  // `hone optimize` on fixture_add, sampling from the fake server, each
  // candidate timed briefly and without the cache flush (these tests check
  // the search, not the timing), then `more`.
  std::vector<std::string> SampleArgs(int samples, std::vector<std::string> more) {
    std::vector<std::string> args = {"optimize",      FixtureAddDir(),
                                     "--model",       "openai-compatible:fake",
                                     "--base-url",    server_.base_url(),
                                     "--strategy",    "sample",
                                     "--samples",     std::to_string(samples),
                                     "--time-budget", "0.2",
                                     "--flush",       "none"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }

  std::vector<nlohmann::json> Attempts() {
    std::ifstream in(run_dir_ / "attempts.jsonl");
    std::vector<nlohmann::json> out;
    std::string line;
    while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
    return out;
  }

  FakeLlmServer server_;
  TestEvaluator env_;
  Task task_;
  std::unique_ptr<PromptBuilder> prompts_;
  std::filesystem::path run_dir_;
  std::vector<double> sleeps_;  // written by the provider's threads one at a time (concurrency 1)
};

TEST_F(OptimizeTest, RefineFeedsTheCompilerErrorBackAndKeepsTheFastestKernel) {
  server_.Enqueue(Ok(OpenAiReply(Fenced(kBroken))));
  server_.Enqueue(Ok(OpenAiReply(Fenced(kSlow))));
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  auto provider = MakeProvider("openai-compatible:fake-model", 1);
  StrategyOptions s;
  s.name = "refine";
  s.params.Set("chains", 1);
  s.params.Set("turns", 3);
  OptimizeResult r = Optimize(*provider, s);

  EXPECT_EQ(r.spend.candidates, 3);
  EXPECT_EQ(r.evaluated, 3);
  EXPECT_EQ(r.verdicts["compile_error"], 1);
  EXPECT_EQ(r.passed, 2);
  EXPECT_EQ(r.best_id, 2) << "the fast kernel is the best";
  EXPECT_EQ(r.best_code, FastKernel());
  EXPECT_GT(r.spend.best_speedup, 0);
  EXPECT_EQ(r.spend.input_tokens, 30);

  // The second turn carried the first reply and its compiler error; the
  // third carried the slow kernel's timing.
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_NE(requests[1].body.find("does not compile"), std::string::npos);
  EXPECT_NE(requests[1].body.find("compile_error"), std::string::npos) << requests[1].body;
  EXPECT_NE(requests[2].body.find("speedup"), std::string::npos) << requests[2].body;
  auto attempts = Attempts();
  ASSERT_EQ(attempts.size(), 3u);
  EXPECT_EQ(attempts[0]["verdict"]["status"], "compile_error");
  EXPECT_EQ(attempts[2]["parents"], nlohmann::json::array({1}));
  EXPECT_TRUE(std::filesystem::exists(run_dir_ / "summary.json"));
}

// A problem of several parts scores each reply on every part: a kernel
// wrong on the second part's sizes only is incorrect there, named so; one
// right on both passes with the geometric mean of its speedups.
TEST_F(OptimizeTest, EveryPartScoresEachReply) {
  const std::filesystem::path small = run_dir_ / "fixture_add_small";
  std::filesystem::create_directories(small);
  for (const char* f : {"reference.cpp", "reference.cu"})
    std::filesystem::copy_file(SourceDir() / "tests/integration/fixture_add" / f, small / f);
  std::string toml = ReadFile(SourceDir() / "tests/integration/fixture_add/task.toml").value();
  toml = toml.substr(0, toml.find("[[cases]]")) + "[[cases]]\nN = 7\n\n" +
         toml.substr(toml.find("[cost]"));
  ASSERT_TRUE(WriteFileAtomic(small / "task.toml", toml).ok());
  auto second = hone::testing::LoadBuiltInTask(small);
  ASSERT_TRUE(second.ok()) << second.status().message();
  const std::string wrong_when_small = R"(#include <hone/kernel.h>
HONE_EXPORT int hone_forward(const hone_args* args) {
  const float* a = static_cast<const float*>(args->inputs[0].data);
  const float* b = static_cast<const float*>(args->inputs[1].data);
  float* out = static_cast<float*>(args->outputs[0].data);
  int64_t n = hone_numel(&args->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = n < 16 ? a[i] : a[i] + 2.0f * b[i];
  return 0;
}
)";
  server_.Enqueue(Ok(OpenAiReply(Fenced(wrong_when_small))));
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  auto provider = MakeProvider("openai-compatible:fake-model", 1);
  StrategyOptions s;
  s.name = "sample";
  s.params.Set("samples", 2);
  OptimizeResult r =
      Optimize(*provider, s, {}, 1, {{"N=4096 and 1025", &task_}, {"N=7", &*second}});
  EXPECT_EQ(r.evaluated, 2);
  EXPECT_EQ(r.verdicts["incorrect"], 1);
  EXPECT_EQ(r.passed, 1);
  EXPECT_EQ(r.best_id, 1) << "the kernel right on both parts";
  auto attempts = Attempts();
  ASSERT_EQ(attempts.size(), 2u);
  const auto& failed = attempts[0]["verdict"];
  EXPECT_EQ(failed["status"], "incorrect");
  EXPECT_EQ(failed["reason"].get<std::string>().rfind("part 2 of 2 (N=7): ", 0), 0u)
      << failed["reason"];
  const auto& passed = attempts[1]["verdict"];
  EXPECT_EQ(passed["status"], "passed");
  EXPECT_NE(passed["reason"].get<std::string>().find("on each of 2 parts"), std::string::npos)
      << passed["reason"];
  EXPECT_NE(passed["notes"].dump().find("geometric mean over 2 parts (N=4096 and 1025 "),
            std::string::npos)
      << passed["notes"];
  EXPECT_NE(passed["checks"].dump().find("N=7 "), std::string::npos) << "the second part's checks";
}

// The first turn gives the reference's source and its time, measured once
// per run folder so that a resumed run asks the same first question.
TEST_F(OptimizeTest, FirstTurnGivesTheReferenceAndItsMeasuredTime) {
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  auto provider = MakeProvider("openai-compatible:fake-model", 1);
  StrategyOptions s;
  s.name = "sample";
  s.params.Set("samples", 1);
  Optimize(*provider, s);
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const std::string& first = requests[0].body;
  EXPECT_NE(first.find("The reference implementation (reference.cpp)"), std::string::npos);
  EXPECT_NE(first.find("Measured time of the reference on the timed case"), std::string::npos)
      << first;
  auto stored = ReadFile(run_dir_ / "reference_time.json");
  ASSERT_TRUE(stored.ok());
  auto j = nlohmann::json::parse(*stored);
  EXPECT_GT(j["seconds"].get<double>(), 0);
  // Read back, not measured again: the same words.
  j["seconds"] = 1.234e-3;
  ASSERT_TRUE(WriteFileAtomic(run_dir_ / "reference_time.json", j.dump()).ok());
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  Optimize(*provider, s);
  requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("on this machine: 1.234 ms"), std::string::npos);
}

TEST_F(OptimizeTest, SampleSurvivesEveryKindOfLlmFailure) {
  // In arrival order: four failures that are retried, then two good
  // replies, one without code and one cut off at the token limit.
  server_.Enqueue(FakeResponse{429, {{"Retry-After", "3"}}, ApiErrorBody("slow down")});
  server_.Enqueue(FakeResponse{500, {}, ApiErrorBody("internal")});
  FakeResponse dropped;
  dropped.drop_connection = true;
  server_.Enqueue(dropped);
  server_.Enqueue(Ok("{\"content\": [ this is not json"));
  server_.Enqueue(Ok(AnthropicReply(Fenced(FastKernel()))));
  server_.Enqueue(Ok(AnthropicReply("I am sorry, I cannot write that kernel.")));
  server_.Enqueue(
      Ok(AnthropicReply("```cpp\n#include <hone/kernel.h>\nHONE_EXPORT int hone_f", "max_tokens")));
  server_.Enqueue(Ok(AnthropicReply(Fenced(kSlow))));
  setenv("ANTHROPIC_API_KEY", "test-key", 1);
  auto provider = MakeProvider("anthropic:claude-test", 1);
  StrategyOptions s;
  s.name = "sample";
  s.params.Set("samples", 4);
  OptimizeResult r = Optimize(*provider, s);

  EXPECT_EQ(r.spend.candidates, 4);
  EXPECT_EQ(r.llm_failures, 0);
  EXPECT_EQ(r.extraction_failures, 2);
  EXPECT_EQ(r.evaluated, 2);
  EXPECT_EQ(r.passed, 2);
  EXPECT_EQ(r.best_code, FastKernel());
  ASSERT_FALSE(sleeps_.empty());
  EXPECT_DOUBLE_EQ(sleeps_[0], 3) << "Retry-After is honoured";
  // Nothing lost: four attempts recorded with eight HTTP exchanges.
  auto attempts = Attempts();
  ASSERT_EQ(attempts.size(), 4u);
  size_t exchanges = 0;
  std::set<std::string> failures;
  for (const auto& a : attempts) {
    exchanges += a["reply"]["exchanges"].size();
    if (a.contains("extraction")) failures.insert(a["extraction"]["failure"].get<std::string>());
    EXPECT_EQ(a["reply"]["exchanges"][0]["request"].get<std::string>().find("test-key"),
              std::string::npos)
        << "the API key is never recorded";
  }
  EXPECT_EQ(exchanges, 8u);
  EXPECT_TRUE(failures.count("no_code"));
  EXPECT_TRUE(failures.count("truncated"));
}

TEST_F(OptimizeTest, EvolveShowsParentsWithTheirResults) {
  server_.Enqueue(Ok(OpenAiReply(Fenced(kSlow))));
  server_.Enqueue(Ok(OpenAiReply(Fenced(kSlow) + "\n// island 2")));
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  auto provider = MakeProvider("openai-compatible:fake-model", 1);
  StrategyOptions s;
  s.name = "evolve";
  s.params.Set("islands", 2);
  s.params.Set("population", 1);
  s.params.Set("generations", 1);
  OptimizeResult r = Optimize(*provider, s);

  EXPECT_EQ(r.spend.candidates, 4);
  EXPECT_EQ(r.passed, 4);
  EXPECT_EQ(r.best_code, FastKernel());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  // Children (the third and fourth calls) show a parent's code and result.
  for (int i : {2, 3}) {
    EXPECT_NE(requests[i].body.find("rep < 50"), std::string::npos) << requests[i].body;
    EXPECT_NE(requests[i].body.find("speedup"), std::string::npos);
  }
  auto attempts = Attempts();
  ASSERT_EQ(attempts.size(), 4u);
  EXPECT_EQ(attempts[2]["kind"] == "mutate" || attempts[2]["kind"] == "crossover", true);
}

TEST_F(OptimizeTest, StopsAtTheCandidateBudgetAndTheTargetSpeedup) {
  for (int i = 0; i < 6; ++i) server_.Enqueue(Ok(OpenAiReply(Fenced(kSlow))));
  auto provider = MakeProvider("openai-compatible:fake-model", 2);
  StrategyOptions s;
  s.name = "sample";
  s.params.Set("samples", 6);
  Budget b;
  b.max_candidates = 2;
  OptimizeResult r = Optimize(*provider, s, b, 2);
  EXPECT_EQ(r.spend.candidates, 2);
  EXPECT_NE(r.stop_reason.find("candidate budget"), std::string::npos) << r.stop_reason;

  for (int i = 0; i < 6; ++i) server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  Budget target;
  target.target_speedup = 1e-6;  // any passing kernel reaches it
  OptimizeResult t = Optimize(*provider, s, target, 1);
  EXPECT_EQ(t.spend.candidates, 1);
  EXPECT_NE(t.stop_reason.find("target speedup"), std::string::npos) << t.stop_reason;
}

TEST_F(OptimizeTest, CommandLineWritesTheBestKernelAndASummary) {
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  server_.Enqueue(Ok(OpenAiReply("no code here")));
  std::filesystem::path best = run_dir_ / "best.cpp";
  auto r = RunHone({"optimize",
                    (SourceDir() / "tests/integration/fixture_add").string(),
                    "--model",
                    "openai-compatible:fake",
                    "--base-url",
                    server_.base_url(),
                    "--strategy",
                    "sample",
                    "--samples",
                    "2",
                    "--concurrency",
                    "2",
                    "-o",
                    best.string(),
                    "--run-dir",
                    (run_dir_ / "cli").string(),
                    "--json",
                    "--time-budget",
                    "0.2",
                    "--flush",
                    "none",
                    "--retry-base-delay",
                    "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["candidates"], 2);
  EXPECT_EQ(j["passed"], 1);
  EXPECT_EQ(j["extraction_failures"], 1);
  EXPECT_TRUE(std::filesystem::exists(best));
  EXPECT_TRUE(std::filesystem::exists(run_dir_ / "cli" / "attempts.jsonl"));

  auto bad = RunHone({"optimize", (SourceDir() / "tests/integration/fixture_add").string(),
                      "--model", "nosuchprovider:x"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("nosuchprovider"), std::string::npos) << bad.output;
}

// Every LLM call failing (a 404: a base URL without /v1, say) is said as it
// happens, and the run exits 1 (the environment failed), not 0.
TEST_F(OptimizeTest, EveryCallFailingIsLoudAndExitsNonZero) {
  server_.SetHandler([](const FakeRequest&) {
    return FakeResponse{404, {}, ApiErrorBody("no such route")};
  });
  std::filesystem::path db = run_dir_ / "store.db";
  auto r = RunHone({"optimize", FixtureAddDir(), "--model", "openai-compatible:fake", "--base-url",
                    server_.base_url(), "--strategy", "sample", "--samples", "2", "--run-dir",
                    (run_dir_ / "failing").string(), "--store", db.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("candidate 0: the LLM call failed: HTTP 404"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("no such route"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("every LLM call failed (2 of 2)"), std::string::npos) << r.output;
  // The last failure is said once, by the error that ends the command.
  EXPECT_EQ(r.output.find("last LLM failure"), std::string::npos) << r.output;
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->GetRun(1)->status, "failed");

  // A missing API key is bad input, named before any run is stored, and no
  // request is made.
  unsetenv("OPENAI_API_KEY");
  size_t requests = server_.requests().size();
  size_t runs = (*store)->ListRuns()->size();
  auto key = RunHone({"optimize", FixtureAddDir(), "--model", "openai:gpt-4.1", "--strategy",
                      "sample", "--samples", "1", "--run-dir", (run_dir_ / "nokey").string(),
                      "--store", db.string()});
  EXPECT_EQ(key.exit_code, 2) << key.output;
  EXPECT_NE(key.output.find("--model openai:gpt-4.1: $OPENAI_API_KEY is not set"),
            std::string::npos)
      << key.output;
  EXPECT_EQ(server_.requests().size(), requests);
  EXPECT_EQ((*store)->ListRuns()->size(), runs) << "no run stored";
}

// A call still failing after its retries (HTTP 500 is retried) is said with
// its count of attempts once, not once by the search and again by the
// provider.
TEST_F(OptimizeTest, ARetriedFailureSaysItsCountOfAttemptsOnce) {
  server_.SetHandler([](const FakeRequest&) {
    return FakeResponse{500, {}, ApiErrorBody("the server fell over")};
  });
  auto r = RunHone({"optimize", FixtureAddDir(), "--model", "openai-compatible:fake", "--base-url",
                    server_.base_url(), "--strategy", "sample", "--samples", "1", "--retries", "2",
                    "--retry-base-delay", "0", "--run-dir", (run_dir_ / "retried").string(),
                    "--store", (run_dir_ / "store.db").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const size_t line = r.output.find("candidate 0: the LLM call failed");
  ASSERT_NE(line, std::string::npos) << r.output;
  const std::string said = r.output.substr(line, r.output.find('\n', line) - line);
  EXPECT_NE(said.find("the server fell over"), std::string::npos) << said;
  size_t counts = 0;
  for (size_t at = said.find("2 attempts"); at != std::string::npos;
       at = said.find("2 attempts", at + 1))
    ++counts;
  EXPECT_EQ(counts, 1u) << said;
}

// A hung endpoint: --request-timeout bounds each attempt, and the time
// budget cancels the calls in flight instead of waiting for them.
TEST_F(OptimizeTest, HungEndpointsAreBoundedByRequestTimeoutAndTheTimeBudget) {
  server_.SetHandler([](const FakeRequest&) {
    FakeResponse r = Ok(OpenAiReply("late"));
    r.delay_ms = 120000;
    return r;
  });
  std::vector<std::string> base = {
      "optimize",   FixtureAddDir(),    "--model",    "openai-compatible:fake",
      "--base-url", server_.base_url(), "--strategy", "sample"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return RunHone(args);
  };
  auto timed = with({"--samples", "1", "--request-timeout", "1", "--retries", "1", "--run-dir",
                     (run_dir_ / "timeout").string()});
  EXPECT_EQ(timed.exit_code, 1) << timed.output;
  EXPECT_LT(timed.seconds, 30) << timed.output;
  EXPECT_NE(timed.output.find("no reply within"), std::string::npos) << timed.output;

  auto budget = with({"--samples", "2", "--concurrency", "2", "--budget-seconds", "1", "--run-dir",
                      (run_dir_ / "budget").string(), "--json"});
  EXPECT_EQ(budget.exit_code, 0) << budget.output;
  EXPECT_LT(budget.seconds, 30) << budget.output;
  auto j = nlohmann::json::parse(budget.output.substr(budget.output.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << budget.output;
  EXPECT_EQ(j["cancelled"], 2);
  EXPECT_EQ(j["candidates"], 0);
  EXPECT_EQ(j["llm_failures"], 0);
}

// Options that cannot work are refused before a run is stored: no junk
// run, no folder created.
TEST_F(OptimizeTest, BadOptionsAreRefusedBeforeAnythingIsStored) {
  std::filesystem::path db = run_dir_ / "store.db";
  // The options, and the flag the message must name.
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--strategy", "foo"}, "--strategy"},
      {{"--strategy", "sample", "--samples", "0"}, "--samples"},
      {{"--strategy", "tree", "--ideas", "0"}, "--ideas"},
      {{"--strategy", "auto", "--arms", "sample,bogus"}, "--arms"},
      {{"--strategy", "auto", "--auto-calls", "-1"}, "--auto-calls"},
      {{"--reasoning-effort", "extreme"}, "--reasoning-effort"},
      {{"--budget-dollars", "0.001"}, "--prices"},  // no price for this model
      {{"-o", "/nonexistent-hone-dir/sub/best.cpp"}, "does not exist"},
      {{"--request-timeout", "0"}, "--request-timeout"},
  };
  for (const auto& [opts, named] : bad) {
    std::vector<std::string> args = {
        "optimize",   FixtureAddDir(),    "--model", "openai-compatible:fake",
        "--base-url", server_.base_url(), "--store", db.string()};
    args.insert(args.end(), opts.begin(), opts.end());
    auto r = RunHone(args);
    EXPECT_EQ(r.exit_code, 2) << opts[0] << ": " << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("started optimize run"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-hone-dir"));
  EXPECT_TRUE(server_.requests().empty());
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE((*store)->ListRuns()->empty());
}

// Two runs never share a folder, even started in the same second; an
// explicit --run-dir that holds a record is refused.
TEST_F(OptimizeTest, EveryRunGetsAFolderOfItsOwn) {
  std::filesystem::path wanted = run_dir_ / "runs" / "task-20260101-000000";
  auto a = RunRecord::Claim(wanted, true);
  auto b = RunRecord::Claim(wanted, true);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, wanted);
  EXPECT_EQ(b->string(), wanted.string() + "-2");
  WriteFileAtomic(*a / "attempts.jsonl", "{}\n");
  auto taken = RunRecord::Claim(*a, false);
  EXPECT_FALSE(taken.ok());
  auto empty = RunRecord::Claim(*b, false);  // empty: usable
  EXPECT_TRUE(empty.ok());

  auto r = RunHone({"optimize", FixtureAddDir(), "--model", "openai-compatible:fake", "--base-url",
                    server_.base_url(), "--run-dir", a->string(), "--store",
                    (run_dir_ / "store.db").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("already holds files"), std::string::npos) << r.output;
}

// Which model, provider, sampling settings and prompts made each reply is
// stored with every call, exported, and named in the summary; retries are
// said as they happen.
TEST_F(OptimizeTest, EveryCallRecordsWhichModelAndSettingsMadeIt) {
  server_.Enqueue(FakeResponse{429, {{"Retry-After", "0"}}, ApiErrorBody("slow down")});
  server_.Enqueue(Ok(OpenAiReply(Fenced(FastKernel()))));
  std::filesystem::path db = run_dir_ / "store.db";
  auto r = RunHone(SampleArgs(1, {"--temperature", "0.3", "--run-dir", (run_dir_ / "prov").string(),
                                  "--store", db.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("retrying in"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("candidate 0: passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("model: openai-compatible:fake (temperature 0.3"), std::string::npos)
      << r.output;
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  auto calls = (*store)->LlmCalls(1);
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_EQ((*calls)[0].provider, "openai-compatible");
  EXPECT_EQ((*calls)[0].model, "fake");
  EXPECT_EQ(nlohmann::json::parse((*calls)[0].sampling)["temperature"], 0.3);
  EXPECT_FALSE((*calls)[0].prompt_version.empty());
  auto exported = RunHone({"export", "1", "--store", db.string(), "--quiet"});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  auto row = nlohmann::json::parse(exported.output.substr(0, exported.output.find('\n')));
  EXPECT_EQ(row["llm"]["provider"], "openai-compatible");
  EXPECT_EQ(row["llm"]["model"], "fake");
  EXPECT_EQ(row["llm"]["prompt_version"], (*calls)[0].prompt_version);
  // -o in a folder that does not exist is refused by every command that has it.
  for (const char* command : {"report", "export"}) {
    auto nowhere =
        RunHone({command, "1", "--store", db.string(), "-o", "/nonexistent-hone-dir/sub/out.txt"});
    EXPECT_EQ(nowhere.exit_code, 2) << command << ": " << nowhere.output;
    EXPECT_NE(nowhere.output.find("does not exist"), std::string::npos) << nowhere.output;
  }
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-hone-dir"));
  auto report = RunHone({"report", "1", "--store", db.string()});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(report.output.find("model: openai-compatible:fake (temperature 0.3"), std::string::npos)
      << report.output;
}

// Ctrl-C stops the search, keeps the run for --resume and says how.
TEST_F(OptimizeTest, InterruptKeepsTheRunAndSaysHowToResume) {
  std::atomic<int> answered{0};
  server_.SetHandler([&](const FakeRequest&) {
    FakeResponse r = Ok(OpenAiReply(Fenced(FastKernel())));
    r.delay_ms = answered++ == 0 ? 0 : 120000;
    return r;
  });
  std::filesystem::path db = run_dir_ / "store.db", log = run_dir_ / "interrupted.log";
  pid_t pid = SpawnHone(SampleArgs(3, {"--concurrency", "1", "--store", db.string(), "--run-dir",
                                       (run_dir_ / "int").string()}),
                        log.string());
  // Interrupt once the first reply is evaluated and the second call hangs.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && answered.load() < 2)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  auto read = ReadFile(log);
  std::string out = read.ok() ? *read : "";
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  EXPECT_NE(out.find("hone optimize --resume 1"), std::string::npos) << out;
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->GetRun(1)->status, "running");
}

// `hone optimize` killed with SIGKILL mid-run and resumed: the replies it
// had are not asked for again, the verdicts it had are not evaluated again,
// and the run ends with every attempt stored once.
TEST_F(OptimizeTest, ResumeAfterSigkillLosesNothingAndRepeatsNothing) {
  std::atomic<int> answered{0};
  server_.SetHandler([&](const FakeRequest&) {
    int n = answered++;
    FakeResponse r = Ok(OpenAiReply(Fenced(n % 3 == 1 ? kBroken : FastKernel())));
    r.delay_ms = 300;
    return r;
  });
  std::filesystem::path db = run_dir_ / "store.db";
  std::vector<std::string> args = {
      "optimize",      (SourceDir() / "tests/integration/fixture_add").string(),
      "--model",       "openai-compatible:fake",
      "--base-url",    server_.base_url(),
      "--strategy",    "refine",
      "--chains",      "2",
      "--turns",       "3",
      "--concurrency", "2",
      "--store",       db.string(),
      "--run-dir",     (run_dir_ / "killed").string(),
      "--time-budget", "0.2",
      "--quiet"};
  // Kill it once some attempts are stored and evaluated, mid-run.
  size_t stored_before = 0;
  int status = KillOnceEvaluated(SpawnHone(args), db);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed";
  std::map<int, std::string> finished_before;  // seq -> when its evaluation finished
  {
    auto store = Store::Open(db);
    ASSERT_TRUE(store.ok());
    auto rows = (*store)->RunCandidates(1);
    ASSERT_TRUE(rows.ok());
    stored_before = rows->size();
    for (const auto& r : *rows)
      if (r.evaluation && r.evaluation->state == "finished")
        finished_before[r.candidate.seq] = r.evaluation->finished;
    EXPECT_EQ((*store)->GetRun(1)->status, "running");
  }
  int asked_before = answered.load();
  ASSERT_LT(stored_before, 6u);

  auto resumed =
      RunHone({"optimize", "--resume", "1", "--store", db.string(), "--json", "--quiet"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  auto j = nlohmann::json::parse(resumed.output.substr(resumed.output.find("\n{") + 1));
  EXPECT_EQ(j["replayed"], static_cast<int>(stored_before));
  EXPECT_EQ(j["stored_verdicts"], static_cast<int>(finished_before.size()));
  EXPECT_EQ(j["candidates"], 6);
  // Only the calls that had no stored reply were asked again.
  EXPECT_EQ(answered.load() - asked_before, 6 - static_cast<int>(stored_before));

  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  auto rows = (*store)->RunCandidates(1);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 6u);
  std::set<int> seqs;
  for (const auto& r : *rows) {
    seqs.insert(r.candidate.seq);
    ASSERT_TRUE(r.evaluation.has_value()) << "seq " << r.candidate.seq;
    EXPECT_EQ(r.evaluation->state, "finished");
    if (finished_before.count(r.candidate.seq)) {
      EXPECT_EQ(r.evaluation->finished, finished_before[r.candidate.seq]);
    }
  }
  EXPECT_EQ(seqs.size(), 6u);
  EXPECT_TRUE((*store)->PendingWork(1)->empty());
  EXPECT_EQ((*store)->GetRun(1)->status, "finished");
}

// `hone bench --model`: a model searched over each task of a suite, scored
// with the suite's metrics; resuming the finished run asks nothing again.
TEST_F(OptimizeTest, BenchesAModelOverASuiteAndResumesWithoutAskingAgain) {
  std::atomic<int> asked{0};
  server_.SetHandler([&](const FakeRequest&) {
    ++asked;
    return Ok(OpenAiReply(Fenced(FastKernel())));  // right for "add", wrong for "affine"
  });
  std::filesystem::path suite = run_dir_ / "suite";
  std::filesystem::create_directories(suite);
  for (const char* t : {"fixture_add", "fixture_affine"})
    std::filesystem::copy(SourceDir() / "tests/integration" / t, suite / t,
                          std::filesystem::copy_options::recursive);
  std::filesystem::path db = run_dir_ / "bench.db";
  auto first = RunHone({"bench",
                        suite.string(),
                        "--model",
                        "openai-compatible:fake",
                        "--base-url",
                        server_.base_url(),
                        "--strategy",
                        "sample",
                        "--samples",
                        "2",
                        "--concurrency",
                        "1",
                        "--store",
                        db.string(),
                        "--json",
                        "--quiet",
                        "--time-budget",
                        "0.2",
                        "--flush",
                        "none",
                        "--retry-base-delay",
                        "0.01"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  auto j = nlohmann::json::parse(first.output.substr(first.output.find("\n{") + 1));
  EXPECT_EQ(asked.load(), 4);
  ASSERT_EQ(j["results"].size(), 4u);
  const auto& m = j["summary"]["metrics"];
  EXPECT_EQ(m["tasks"], 2);
  EXPECT_EQ(m["tasks_correct"], 1);
  EXPECT_EQ(m["attempts_passed"], 2);
  EXPECT_DOUBLE_EQ(m["pass_at_k"]["1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(m["fast_p"][0]["eager"].get<double>(), 0.5);
  std::multiset<std::string> statuses;
  for (const auto& r : j["results"])
    statuses.insert(r["task"].get<std::string>() + ":" + r["status"].get<std::string>());
  EXPECT_EQ(statuses.count("fixture_add:passed"), 2u) << j["results"].dump();

  auto again = RunHone({"bench", "--resume", "1", "--store", db.string(), "--json", "--quiet"});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(asked.load(), 4);  // every reply and verdict came from the store
  auto k = nlohmann::json::parse(again.output.substr(again.output.find("\n{") + 1));
  std::multiset<std::string> resumed;
  for (const auto& r : k["results"])
    resumed.insert(r["task"].get<std::string>() + ":" + r["status"].get<std::string>());
  EXPECT_EQ(resumed, statuses);
}

// Memory across tasks: a run distils what worked into lessons; a later run
// on a similar task shows them in its first turn (frozen in its folder, so
// resuming it asks the same), and a run on an unrelated task does not.
class LessonsTest : public OptimizeTest {
 protected:
  void SetUp() override {
    OptimizeTest::SetUp();
    auto store = Store::Open(run_dir_ / "lessons.db");
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
  }

  Task Load(const std::string& folder) {
    auto task = hone::testing::LoadBuiltInTask(SourceDir() / folder);
    EXPECT_TRUE(task.ok()) << task.status().message();
    return task.ok() ? *task : Task{};
  }

  int64_t NewRun(const Task& task) {
    EXPECT_TRUE(store_->PutTask({task.hash, task.name, task.dir.string(), ""}).ok());
    auto run = store_->CreateRun("optimize", "{}");
    EXPECT_TRUE(run.ok());
    return run.ok() ? *run : 0;
  }

  // A search of `task` kept in the store, with lessons on.
  OptimizeResult Search(Provider& provider, const Task& task, StrategyOptions strategy, int64_t run,
                        const std::filesystem::path& dir, bool timed = true) {
    OptimizeOptions o;
    o.strategy = strategy;
    o.llm_concurrency = 1;
    o.eval.time = timed;
    o.eval.timing.budget_seconds = 0.2;
    o.eval.timing.min_reps = 5;
    o.eval.flush = FlushMode::kNone;
    o.run_dir = dir;
    o.store = store_.get();
    o.run_id = run;
    o.options_hash = "lessons-test";
    o.lessons = true;
    Optimizer optimizer(task, env_.cpu(), provider, *prompts_, *env_.evaluator, o);
    auto r = optimizer.Run();
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : OptimizeResult{};
  }

  // A refine chain on fixture_add: the slow kernel, then the fast one.
  void LearnFromFixtureAdd(Provider& provider) {
    server_.Enqueue(
        Ok(OpenAiReply("A first, simple kernel.\n\n```cpp\n" + std::string(kSlow) + "```")));
    server_.Enqueue(
        Ok(OpenAiReply("Dropped the 50 repeated passes: one pass over the data.\n\n"
                       "```cpp\n" +
                       FastKernel() + "```")));
    StrategyOptions s;
    s.name = "refine";
    s.params.Set("chains", 1);
    s.params.Set("turns", 2);
    OptimizeResult r = Search(provider, task_, s, NewRun(task_), run_dir_ / "add");
    EXPECT_EQ(r.passed, 2);
    EXPECT_GE(r.lessons_added, 1);
    EXPECT_TRUE(r.lessons_shown.empty()) << "nothing learnt before";
  }

  std::unique_ptr<Store> store_;
};

TEST_F(LessonsTest, AreStoredAfterARunAndRecalledForASimilarTaskOnly) {
  auto provider = MakeProvider("openai-compatible:fake-model", 1);
  LearnFromFixtureAdd(*provider);
  auto lessons = store_->Lessons();
  ASSERT_TRUE(lessons.ok()) << lessons.status().message();
  const LessonRow* step = nullptr;
  for (const LessonRow& l : *lessons)
    if (l.basis == "parent") step = &l;
  ASSERT_NE(step, nullptr) << "the fast kernel over the slow one";
  EXPECT_EQ(step->task_name, "fixture_add");
  EXPECT_EQ(step->category, "elementwise");
  EXPECT_EQ(step->backend, "cpu");
  EXPECT_GT(step->speedup_after, 10 * step->speedup_before);
  ASSERT_TRUE(step->sol_before && step->sol_after);
  EXPECT_GT(*step->sol_after, *step->sol_before);
  EXPECT_NE(step->change.find("drops volatile accesses"), std::string::npos) << step->change;
  EXPECT_NE(step->change.find("Dropped the 50 repeated passes"), std::string::npos) << step->change;
  auto evidence = nlohmann::json::parse(step->evidence);
  EXPECT_EQ(evidence["seq"], 1);
  EXPECT_EQ(evidence["basis_seq"], 0);

  // A similar task (elementwise, f32): its first turn shows the lesson.
  Task affine = Load("tests/integration/fixture_affine");
  server_.Enqueue(Ok(OpenAiReply("no code here")));
  StrategyOptions one;
  one.name = "sample";
  one.params.Set("samples", 1);
  int64_t similar_run = NewRun(affine);
  OptimizeResult similar = Search(*provider, affine, one, similar_run, run_dir_ / "affine");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  const std::string& first = requests[2].body;
  EXPECT_NE(first.find("Lessons from similar tasks"), std::string::npos) << first;
  EXPECT_NE(first.find("fixture_add (elementwise, f32; similarity"), std::string::npos) << first;
  EXPECT_NE(first.find("Dropped the 50 repeated passes"), std::string::npos) << first;
  EXPECT_FALSE(similar.lessons_shown.empty());
  EXPECT_EQ(similar.lessons_added, 0) << "nothing passed";
  EXPECT_TRUE(std::filesystem::exists(run_dir_ / "affine" / "lessons.json"));

  // An unrelated task (matmul): no such section.
  Task matmul = Load("tasks/examples/matmul");
  server_.Enqueue(Ok(OpenAiReply("no code here")));
  OptimizeResult unrelated =
      Search(*provider, matmul, one, NewRun(matmul), run_dir_ / "matmul", /*timed=*/false);
  requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[3].body.find("Lessons from similar tasks"), std::string::npos)
      << requests[3].body;
  EXPECT_TRUE(unrelated.lessons_shown.empty());

  // Resumed, the similar run shows what it showed before, even with the
  // lessons deleted meanwhile: its stored reply is replayed, not asked again.
  std::vector<int64_t> ids;
  auto before = store_->Lessons();
  ASSERT_TRUE(before.ok());
  for (const LessonRow& l : *before) ids.push_back(l.id);
  Status deleted = store_->DeleteLessons(ids);
  ASSERT_TRUE(deleted.ok()) << deleted.message();
  OptimizeResult resumed = Search(*provider, affine, one, similar_run, run_dir_ / "affine");
  EXPECT_EQ(resumed.replayed, 1);
  EXPECT_EQ(server_.requests().size(), 4u);
  EXPECT_EQ(resumed.lessons_shown, similar.lessons_shown);
}

// hone lessons list, export and delete over a store with lessons in it,
// and every bad input named, exit 2.
TEST_F(LessonsTest, CanBeListedExportedAndDeleted) {
  auto provider = MakeProvider("openai-compatible:fake-model", 1);
  LearnFromFixtureAdd(*provider);
  auto stored = store_->Lessons();
  ASSERT_TRUE(stored.ok() && !stored->empty());
  const std::string db = (run_dir_ / "lessons.db").string();

  auto list = RunHone({"lessons", "list", "--store", db});
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("fixture_add"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("elementwise"), std::string::npos) << list.output;
  auto json = RunHone({"lessons", "list", "--task", "fixture_add", "--json", "--store", db});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  auto j = nlohmann::json::parse(json.output, nullptr, false);
  ASSERT_TRUE(j.is_array()) << json.output;
  ASSERT_EQ(j.size(), stored->size());
  EXPECT_EQ(j[0]["id"], (*stored)[0].id);
  EXPECT_EQ(j[0]["task"], "fixture_add");
  EXPECT_TRUE(j[0]["speedup"].contains("before"));
  EXPECT_EQ(j[0]["signature"]["category"], "elementwise");
  auto other = RunHone({"lessons", "list", "--task", "matmul", "--json", "--store", db});
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_EQ(nlohmann::json::parse(other.output), nlohmann::json::array());
  // None for a task: the answer says how lessons come about and what the
  // store's optimize runs gave.
  auto none = RunHone({"lessons", "list", "--task", "matmul", "--store", db});
  ASSERT_EQ(none.exit_code, 0) << none.output;
  EXPECT_NE(none.output.find("no lessons for task 'matmul': lessons are distilled when a `hone "
                             "optimize` run finishes"),
            std::string::npos)
      << none.output;
  // The store's runs were on fixture_add, none on matmul.
  EXPECT_NE(none.output.find("this store has no optimize run on it"), std::string::npos)
      << none.output;

  std::filesystem::path out = run_dir_ / "lessons.jsonl";
  auto exported = RunHone({"lessons", "export", "-o", out.string(), "--store", db});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_NE(exported.output.find("exported " + std::to_string(stored->size()) + " lesson"),
            std::string::npos)
      << exported.output;
  std::ifstream in(out);
  std::string line;
  size_t rows = 0;
  while (std::getline(in, line)) {
    auto row = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(row.is_object()) << line;
    EXPECT_EQ(row["id"], (*stored)[rows].id);
    ++rows;
  }
  EXPECT_EQ(rows, stored->size());

  // hone optimize says which lessons its first turn showed; with
  // --no-lessons it shows none.
  std::vector<std::string> affine = {
      "optimize",      (SourceDir() / "tests/integration/fixture_affine").string(),
      "--model",       "openai-compatible:fake",
      "--base-url",    server_.base_url(),
      "--strategy",    "sample",
      "--samples",     "1",
      "--time-budget", "0.2",
      "--flush",       "none",
      "--store",       db};
  auto with_args = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = affine;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  server_.Enqueue(Ok(OpenAiReply("no code here")));
  auto shown = RunHone(with_args({"--run-dir", (run_dir_ / "cli-shown").string()}));
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  // Every lesson of the one run (one or two: the fast kernel may also beat
  // the reference by 10%).
  EXPECT_NE(shown.output.find("lessons: " + std::to_string(stored->size()) +
                              " from similar tasks shown ("),
            std::string::npos)
      << shown.output;
  EXPECT_NE(server_.requests().back().body.find("Lessons from similar tasks"), std::string::npos);
  server_.Enqueue(Ok(OpenAiReply("no code here")));
  auto off = RunHone(with_args(
      {"--run-dir", (run_dir_ / "cli-off").string(), "--no-lessons", "--json", "--quiet"}));
  ASSERT_EQ(off.exit_code, 0) << off.output;
  auto summary = nlohmann::json::parse(off.output.substr(off.output.find('{')), nullptr, false);
  ASSERT_TRUE(summary.is_object()) << off.output;
  EXPECT_EQ(summary["lessons"]["shown"], nlohmann::json::array());
  EXPECT_EQ(server_.requests().back().body.find("Lessons from similar tasks"), std::string::npos);

  // Bad input: the field named, exit 2, nothing deleted.
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"lessons", "delete", "abc", "--store", db}, "ID: expected a lesson id"},
      {{"lessons", "delete", "0", "--store", db}, "ID: expected a lesson id"},
      {{"lessons", "delete", std::to_string((*stored)[0].id), "99999", "--store", db},
       "no lesson 99999"},
      {{"lessons", "list", "--task", "", "--store", db}, "--task"},
      {{"lessons", "list", "--store", (run_dir_ / "nosuch.db").string()}, "no run store there"},
      {{"lessons", "export", "-o", "/nonexistent-hone-dir/x.jsonl", "--store", db},
       "does not exist"},
      {{"lessons", "delete", "--store", db}, "id is required"},
      {{"lessons", "forget", "--store", db}, "unknown subcommand 'forget'"},
  };
  for (const auto& [args, named] : bad) {
    auto r = RunHone(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(run_dir_ / "nosuch.db")) << "never created";
  EXPECT_EQ(store_->Lessons()->size(), stored->size());

  auto deleted = RunHone({"lessons", "delete", std::to_string((*stored)[0].id), "--store", db});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_NE(deleted.output.find("deleted 1 lesson"), std::string::npos) << deleted.output;
  auto left = store_->Lessons();
  ASSERT_EQ(left->size(), stored->size() - 1);
  for (const LessonRow& l : *left) EXPECT_NE(l.id, (*stored)[0].id);
}

// The worked example every CPU prompt shows must itself pass.
TEST(PromptExampleTest, CpuExamplePasses) {
  TestEvaluator env = TestEvaluator::Make();
  auto task = hone::testing::LoadBuiltInTask(SourceDir() / "tests/integration/fixture_affine");
  ASSERT_TRUE(task.ok()) << task.status().message();
  auto v = env.evaluator->Evaluate(*task, SourceDir() / "prompts/example_cpu.cpp", VerifyOnly());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
}

}  // namespace
}  // namespace hone
