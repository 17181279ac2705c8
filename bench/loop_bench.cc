// The search loop's own overhead: candidates per second through prompt ->
// LLM call -> extraction -> build -> evaluation on the CPU, with a fake LLM
// server on loopback that answers at once. Three runs: every reply a new
// source (cold g++ builds) and verification only; every reply the same
// source (cached builds); and new sources with timing (0.2 s budget each).
// Results go to docs/PERFORMANCE.md.
//
//   build/bench/loop_bench [--candidates N]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_source_dir.h"
#include "build/compiler_builder.h"
#include "core/fs.h"
#include "core/paths.h"
#include "pytorch/pytorch_stages.h"
#include "run/cpu_backend.h"
#include "search/optimizer.h"
#include "session/eval_context.h"
#include "support/fake_llm_server.h"
#include "task/task_loader.h"

namespace {

using namespace hone;
using Clock = std::chrono::steady_clock;

struct Setup {
  std::shared_ptr<const Backend> cpu;
  std::unique_ptr<Evaluator> evaluator;
};

Setup MakeSetup(const std::filesystem::path& cache) {
  Setup s;
  s.cpu = std::make_shared<CpuBackend>(
      std::move(CompilerBuilder::Create(CompileCache(cache / "builds"), CpuCompilerOptions()))
          .value(),
      std::filesystem::path(HONE_BENCH_BINARY_DIR) / "hone-sandbox",
      std::move(LoadOrMeasureMachine(cache)).value());
  EvaluatorEnv env;
  env.languages = BuiltInLanguages();
  RegisterCpuBackend(env.backends);
  env.backends.Add(s.cpu);
  env.open_pytorch_path = OpenPyTorchStages;
  env.scratch_root = cache / "scratch";
  s.evaluator = std::make_unique<Evaluator>(env);
  return s;
}

// One search of `n` samples; returns candidates per second.
double RunOnce(Setup& setup, const Task& task, const PromptBuilder& prompts, int n, bool new_source,
               bool timed, const std::filesystem::path& run_dir) {
  // The integration catalogue's correct candidate for this task.
  std::string kernel = ReadFile(BenchSourceDir() / "tests/adversarial/cpu/correct.cpp").value();
  FakeLlmServer server;
  std::atomic<int> served{0};
  server.SetHandler([&, kernel](const FakeRequest&) {
    int k = served++;
    std::string code = kernel + (new_source ? "// variant " + std::to_string(k) + "\n" : "");
    return FakeResponse{200, {}, OpenAiReply("```cpp\n" + code + "```\n")};
  });
  if (!server.Start().ok()) return 0;
  auto model = ParseModelSpec("openai-compatible:bench", server.base_url());
  Provider provider(*model, MakeCurlHttpClient(), RetryPolicy{}, PriceTable::Defaults(), 4);
  OptimizeOptions o;
  o.strategy.name = "sample";
  o.strategy.params.Set("samples", n);
  o.llm_concurrency = 4;
  o.eval.time = timed;
  o.eval.timing.budget_seconds = 0.2;
  o.run_dir = run_dir;
  Optimizer optimizer(task, *setup.cpu, provider, prompts, *setup.evaluator, o);
  auto start = Clock::now();
  auto r = optimizer.Run();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!r.ok() || r->passed != n) {
    std::fprintf(stderr, "loop_bench: the search failed: %s\n",
                 r.ok() ? "not every candidate passed" : r.status().message().c_str());
    return 0;
  }
  return n / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 24;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--candidates") && i + 1 < argc) n = std::atoi(argv[++i]);
  std::filesystem::path cache = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-loop");
  setenv("HONE_CACHE", cache.c_str(), 1);
  Setup setup = MakeSetup(cache);
  auto task = LoadNativeTask(BenchSourceDir() / "tests/integration/fixture_add",
                             TaskDevicesOf(BuiltInBackends()));
  auto prompts = PromptBuilder::Load(BenchSourceDir() / "prompts", BenchSourceDir() / "include",
                                     BuiltInLanguages());
  if (!task.ok() || !prompts.ok()) {
    std::fprintf(stderr, "loop_bench: cannot load the fixture task or the prompts\n");
    return 1;
  }
  std::printf("%-62s %10s\n", "search of fixture_add, sample strategy, 4 LLM calls in flight",
              "cand./s");
  struct Row {
    const char* what;
    bool new_source, timed;
  } rows[] = {{"new source each reply (cold g++ build), verification only", true, false},
              {"the same source each reply (cached build), verification only", false, false},
              {"new source each reply, verification and timing (0.2 s budget)", true, true}};
  int k = 0;
  for (const Row& r : rows) {
    double rate = RunOnce(setup, *task, *prompts, n, r.new_source, r.timed,
                          cache / ("run" + std::to_string(k++)));
    std::printf("%-62s %10.2f\n", r.what, rate);
  }
  std::filesystem::remove_all(cache);
  return 0;
}
