// Measures hone's own cost, not the kernels': the harness overhead of one
// evaluation (everything except the build and the time inside hone_forward),
// the cached-build path, and a cold build. Prints a table and, with --json,
// one JSON document. Results go to docs/PERFORMANCE.md.
//
//   build/bench/harness_bench [--iterations N] [--json]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "bench_source_dir.h"
#include "build/build_pool.h"
#include "build/compiler_builder.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/paths.h"
#include "cuda/cuda_compiler.h"
#include "measure/stats.h"
#include "pytorch/pytorch_stages.h"
#include "run/cpu_backend.h"
#include "run/evaluator.h"
#include "session/eval_context.h"
#include "task/task_loader.h"

namespace {

using namespace hone;
using Clock = std::chrono::steady_clock;

struct Row {
  std::string what;
  SampleSummary s;  // seconds
};

}  // namespace

void PrintRows(const std::vector<Row>& rows, bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json) std::printf("%-58s %12s %12s %12s %6s\n", "measure", "median", "min", "max", "n");
  for (const auto& r : rows) {
    if (json) {
      out.push_back({{"what", r.what},
                     {"median_ms", r.s.median * 1e3},
                     {"min_ms", r.s.min * 1e3},
                     {"max_ms", r.s.max * 1e3},
                     {"n", r.s.count}});
    } else {
      std::printf("%-58s %9.3f ms %9.3f ms %9.3f ms %6d\n", r.what.c_str(), r.s.median * 1e3,
                  r.s.min * 1e3, r.s.max * 1e3, r.s.count);
    }
  }
  if (json) std::printf("%s\n", out.dump(2).c_str());
}

// Builds `text` under `variants` distinct names (a comment defeats the cache).
std::vector<std::filesystem::path> Variants(const std::filesystem::path& dir,
                                            const std::string& text, const std::string& ext,
                                            int first, int count) {
  std::vector<std::filesystem::path> out;
  for (int i = first; i < first + count; ++i) {
    std::filesystem::path p = dir / ("variant" + std::to_string(i) + ext);
    std::ofstream(p) << text << "\n// variant " << i << "\n";
    out.push_back(p);
  }
  return out;
}

// nvcc builds of a real example kernel: cold, cached, and many at once on
// every core (what a search does while the GPU evaluates).
int CudaBuilds(const std::string& arch, int iterations, bool json) {
  std::filesystem::path src = BenchSourceDir();
  std::filesystem::path cache = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-nvcc");
  auto builder =
      std::move(CompilerBuilder::Create(CompileCache(cache / "builds"), CudaCompilerOptions(arch)))
          .value();
  std::string text = *ReadFile(src / "tasks/examples/softmax/solutions/fast.cu");
  std::vector<Row> rows;
  std::vector<double> cold;
  for (const auto& p : Variants(cache, text, ".cu", 0, std::min(iterations, 5))) {
    auto start = Clock::now();
    auto r = builder->Build(p);
    cold.push_back(SecondsSince(start));
    if (!r.ok() || !r->ok) return std::fprintf(stderr, "nvcc build failed\n"), 1;
  }
  rows.push_back({"cold nvcc build (softmax fast.cu, " + arch + ")", Summarize(cold)});
  // Every CUDA solution of the example suite, each built cold a few times.
  std::vector<double> suite;
  std::string slowest;
  double slowest_median = 0;
  int index = 1000;
  for (const auto& task : std::filesystem::directory_iterator(src / "tasks/examples")) {
    if (!std::filesystem::is_directory(task.path() / "solutions")) continue;
    for (const auto& sol : std::filesystem::directory_iterator(task.path() / "solutions")) {
      if (sol.path().extension() != ".cu") continue;
      std::vector<double> mine;
      for (const auto& p :
           Variants(cache, *ReadFile(sol.path()), ".cu", index, std::min(iterations, 3))) {
        auto t0 = Clock::now();
        auto r = builder->Build(p);
        mine.push_back(SecondsSince(t0));
        if (!r.ok() || !r->ok) return std::fprintf(stderr, "nvcc build failed: %s\n", p.c_str()), 1;
      }
      index += 100;
      suite.insert(suite.end(), mine.begin(), mine.end());
      double m = Summarize(mine).median;
      if (m > slowest_median) {
        slowest_median = m;
        slowest = task.path().filename().string() + "/" + sol.path().filename().string();
      }
    }
  }
  rows.push_back({"cold nvcc build, every example CUDA solution", Summarize(suite)});
  if (!slowest.empty())
    rows.push_back(
        {"  slowest of them: " + slowest, Summarize(std::vector<double>{slowest_median})});
  std::vector<double> cached;
  for (int i = 0; i < iterations * 10; ++i) {
    auto start = Clock::now();
    builder->Build(cache / "variant0.cu");
    cached.push_back(SecondsSince(start));
  }
  rows.push_back({"cached build", Summarize(cached)});
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  auto batch = Variants(cache, text, ".cu", 100, 2 * threads);
  auto start = Clock::now();
  {
    BuildPool pool(*builder, threads);
    std::vector<std::future<Result<BuildResult>>> f;
    for (const auto& p : batch) f.push_back(pool.Submit(p));
    for (auto& x : f) x.wait();
  }
  double wall = SecondsSince(start);
  rows.push_back({"parallel: " + std::to_string(batch.size()) + " builds on " +
                      std::to_string(threads) + " threads, per build",
                  Summarize(std::vector<double>{wall / static_cast<double>(batch.size())})});
  PrintRows(rows, json);
  std::filesystem::remove_all(cache);
  return 0;
}

int main(int argc, char** argv) {
  int iterations = 20;
  bool json = false;
  std::string cuda_arch;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iterations") && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--json"))
      json = true;
    else if (!std::strcmp(argv[i], "--cuda") && i + 1 < argc)
      cuda_arch = argv[++i];
  }
  if (!cuda_arch.empty()) return CudaBuilds(cuda_arch, iterations, json);
  std::filesystem::path src = BenchSourceDir();
  std::filesystem::path cache = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-bench");
  // Beside hone in a build tree (bench/ is one level down), or $HONE_SANDBOX.
  auto sandbox = FindSandboxExecutable();
  auto cpu = std::make_shared<CpuBackend>(
      std::move(CompilerBuilder::Create(CompileCache(cache / "builds"), CpuCompilerOptions()))
          .value(),
      sandbox.ok() ? *sandbox : ExecutableDir().parent_path() / "hone-sandbox",
      std::move(LoadOrMeasureMachine(cache)).value());
  Builder* builder = &cpu->builder();
  EvaluatorEnv env;
  env.languages = BuiltInLanguages();
  RegisterCpuBackend(env.backends);
  env.backends.Add(cpu);
  env.open_pytorch_path = OpenPyTorchStages;
  env.scratch_root = cache / "scratch";
  Evaluator evaluator(env);
  Task task = std::move(LoadNativeTask(src / "tests/integration/fixture_add",
                                       TaskDevicesOf(BuiltInBackends())))
                  .value();
  std::filesystem::path candidate = src / "tests/adversarial/cpu/correct.cpp";

  std::vector<Row> rows;
  // Cold builds: a unique comment defeats the cache each time.
  {
    std::vector<double> t;
    std::string text = *ReadFile(candidate);
    for (int i = 0; i < std::min(iterations, 5); ++i) {
      std::filesystem::path p = cache / ("cold" + std::to_string(i) + ".cpp");
      std::ofstream(p) << text << "\n// " << i << "\n";
      auto start = Clock::now();
      auto r = builder->Build(p);
      t.push_back(SecondsSince(start));
      if (!r.ok() || !r->ok) return std::fprintf(stderr, "build failed\n"), 1;
    }
    rows.push_back({"cold build (g++ -O3, small candidate)", Summarize(t)});
  }
  {
    std::vector<double> t;
    for (int i = 0; i < iterations * 10; ++i) {
      auto start = Clock::now();
      auto r = builder->Build(candidate);
      t.push_back(SecondsSince(start));
    }
    rows.push_back({"cached build", Summarize(t)});
  }
  auto overhead = [&](const char* what, EvalOptions o) {
    std::vector<double> over, total;
    for (int i = 0; i < iterations + 1; ++i) {
      auto v = evaluator.Evaluate(task, candidate, o);
      if (!v.ok() || v->status != VerdictStatus::kPassed) {
        std::fprintf(stderr, "evaluation failed: %s\n",
                     v.ok() ? v->reason.c_str() : v.status().message().c_str());
        std::exit(1);
      }
      if (i == 0) continue;  // first one warms the build cache
      total.push_back(v->total_seconds);
      over.push_back(v->total_seconds - v->build.seconds - v->kernel_seconds);
    }
    rows.push_back({std::string(what) + ": harness overhead", Summarize(over)});
    rows.push_back({std::string(what) + ": total", Summarize(total)});
  };
  EvalOptions verify;
  verify.time = false;
  overhead("verify only (2 cases x 3 seeds x 2 dists)", verify);
  EvalOptions timed;
  timed.flush = FlushMode::kLines;
  timed.timing.budget_seconds = 0.05;
  timed.timing.warmup_seconds = 0.01;
  timed.timing.min_reps = 10;
  overhead("verify + time (lines flush, 0.05 s budget)", timed);

  PrintRows(rows, json);
  std::filesystem::remove_all(cache);
  return 0;
}
