// hone bench SUITE: evaluates every known solution of every task in a suite
// and prints one table (or one JSON document).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "build/build_pool.h"
#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "report/verdict_json.h"
#include "report/verdict_text.h"
#include "task/task_loader.h"

namespace hone::cli {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  std::string suite;
  std::string backend = "cpu";
  std::vector<std::string> only;  // solution file stems to keep
  EvalFlags flags;
  Output out;
};

std::vector<fs::path> TaskDirs(const fs::path& suite) {
  if (IsNativeTaskDir(suite)) return {suite};
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(suite, ec))
    if (e.is_directory() && IsNativeTaskDir(e.path())) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<fs::path> Solutions(const fs::path& task_dir, const std::vector<std::string>& only,
                                const std::string& backend) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(task_dir / "solutions", ec)) {
    auto ext = e.path().extension();
    bool wanted = backend == "cuda" ? ext == ".cu" : (ext == ".cpp" || ext == ".cc");
    if (!e.is_regular_file() || !wanted) continue;
    if (!only.empty() &&
        std::find(only.begin(), only.end(), e.path().stem().string()) == only.end())
      continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Compiles every reference and solution on all cores before evaluating, so
// the evaluations that follow find their builds in the cache.
void PrebuildAll(const std::vector<fs::path>& dirs, const std::vector<std::string>& only,
                 const std::string& backend, Builder& builder, Progress& progress) {
  BuildPool pool(builder);
  std::vector<std::future<Result<BuildResult>>> builds;
  for (const auto& dir : dirs) {
    auto task = LoadNativeTask(dir);
    if (!task.ok()) continue;  // reported when the suite is evaluated
    auto reference = task->ReferenceFor(backend);
    if (!reference.ok()) continue;  // reported when the task is evaluated
    builds.push_back(pool.Submit(*reference));
    for (const auto& sol : Solutions(dir, only, backend)) builds.push_back(pool.Submit(sol));
  }
  for (size_t i = 0; i < builds.size(); ++i) {
    progress.Show(
        fmt::format("building {}/{} on {} threads", i + 1, builds.size(), pool.threads()));
    builds[i].wait();
  }
}

std::string Cell(const std::optional<TimingResult>& t) {
  return t ? FormatSeconds(t->summary.median) : "-";
}

int RunBench(const BenchArgs& a) {
  auto options = ToEvalOptions(a.flags);
  if (!options.ok()) return ReportError(options.status());
  if (!fs::is_directory(a.suite))
    return ReportError(Status::Invalid(a.suite + ": not a directory"));
  auto dirs = TaskDirs(a.suite);
  if (dirs.empty())
    return ReportError(Status::Invalid(a.suite + ": no task folders (with task.toml) found"));
  if (a.backend != "cpu" && a.backend != "cuda")
    return ReportError(Status::Invalid("--backend: expected cpu or cuda, got '" + a.backend + "'"));
  auto ctx = MakeEvalContext(a.backend == "cuda", a.flags.device);
  if (!ctx.ok()) return ReportError(ctx.status());
  Evaluator evaluator((*ctx)->env);
  Progress progress(a.out);
  Builder& builder = a.backend == "cuda" ? *(*ctx)->cuda_builder : *(*ctx)->builder;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto suite_start = Clock::now();
  PrebuildAll(dirs, a.only, a.backend, builder, progress);
  double prebuild_seconds = since(suite_start);
  // Where the suite's wall time went: stages summed over evaluations, and
  // the part spent inside hone_forward (reference and candidate).
  std::map<std::string, double> stage_totals;
  double kernel_seconds = 0;

  nlohmann::json results = nlohmann::json::array();
  std::vector<std::string> rows;
  int evaluated = 0, passed = 0, malformed = 0;
  bool warned_sandbox = false;
  double log_speedup = 0;
  int speedups = 0;
  if (!a.out.json)
    rows.push_back(fmt::format("{:<14} {:<10} {:<14} {:>11} {:>11} {:>8} {:>6}", "task", "solution",
                               "status", "candidate", "reference", "speedup", "SOL%"));
  for (const auto& dir : dirs) {
    auto task = LoadNativeTask(dir);
    if (!task.ok()) {
      ++malformed;
      std::fprintf(stderr, "hone: %s\n", task.status().message().c_str());
      continue;
    }
    for (const auto& sol : Solutions(dir, a.only, a.backend)) {
      std::string label = task->name + "/" + sol.stem().string();
      auto verdict = evaluator.Evaluate(*task, sol, *options, [&](const std::string& stage) {
        progress.Show(fmt::format("[{} done, {} passed] {}: {}", evaluated, passed, label, stage));
      });
      if (!verdict.ok()) {
        ++malformed;
        progress.Clear();
        std::fprintf(stderr, "hone: %s\n", verdict.status().message().c_str());
        break;
      }
      ++evaluated;
      const Verdict& v = *verdict;
      if (!v.sandbox_missing.empty() && !warned_sandbox) {
        progress.Clear();
        std::fprintf(stderr, "hone: warning: not in force in the sandbox on this machine: %s\n",
                     v.sandbox_missing.c_str());
        warned_sandbox = true;
      }
      if (v.status == VerdictStatus::kPassed) ++passed;
      for (const auto& [stage, seconds] : v.stage_seconds) stage_totals[stage] += seconds;
      kernel_seconds += v.kernel_seconds;
      if (v.status == VerdictStatus::kPassed && v.speedup > 0) {
        log_speedup += std::log(v.speedup);
        ++speedups;
      }
      nlohmann::json j = VerdictToJson(v);
      j["solution"] = sol.stem().string();
      results.push_back(j);
      std::string row = fmt::format("{:<14} {:<10} {:<14} {:>11} {:>11} {:>8} {:>6}", task->name,
                                    sol.stem().string(), StatusName(v.status),
                                    Cell(v.candidate_time), Cell(v.reference_time),
                                    v.speedup > 0 ? fmt::format("{:.2f}x", v.speedup) : "-",
                                    v.sol_percent > 0 ? fmt::format("{:.1f}", v.sol_percent) : "-");
      if (!a.out.json && !a.out.quiet) {
        progress.Clear();
        std::cout << (rows.size() == 1 ? rows[0] + "\n" : "") << row << "\n" << std::flush;
        if (rows.size() == 1) rows.push_back("");
        if (v.status != VerdictStatus::kPassed)
          std::cout << "    " << v.reason.substr(0, 300) << "\n";
      }
    }
  }
  progress.Clear();
  double geomean = speedups ? std::exp(log_speedup / speedups) : 0;
  double wall = since(suite_start);
  double per_hour = wall > 0 ? evaluated * 3600 / wall : 0;
  double harness_share = wall > 0 ? std::max(0.0, 1 - kernel_seconds / wall) : 0;
  nlohmann::json stages = stage_totals;
  nlohmann::json summary = {{"evaluated", evaluated},
                            {"passed", passed},
                            {"malformed_tasks", malformed},
                            {"geomean_speedup_passed", geomean},
                            {"wall_seconds", wall},
                            {"prebuild_seconds", prebuild_seconds},
                            {"evaluations_per_hour", per_hour},
                            {"stage_seconds", stages},
                            {"kernel_seconds", kernel_seconds},
                            {"harness_share", harness_share}};
  if (a.out.json) {
    std::cout << nlohmann::json({{"suite", a.suite},
                                 {"machine", MachineToJson((*ctx)->env.machine)},
                                 {"results", results},
                                 {"summary", summary}})
                     .dump(2)
              << "\n";
  } else {
    std::cout << fmt::format("{} evaluated, {} passed, geometric-mean speedup of passed: {:.2f}x\n",
                             evaluated, passed, geomean);
    std::string parts;
    for (const auto& [stage, seconds] : stage_totals)
      parts += fmt::format("{}{} {:.1f} s", parts.empty() ? "" : ", ", stage, seconds);
    if (!a.out.quiet)
      std::cout << fmt::format(
          "wall {:.1f} s ({:.0f} evaluations/hour; parallel prebuild {:.1f} s; stages: {}); "
          "inside hone_forward {:.1f} s, harness {:.0f}% of wall time\n",
          wall, per_hour, prebuild_seconds, parts, kernel_seconds, 100 * harness_share);
  }
  return malformed ? kExitUsage : kExitOk;
}

}  // namespace

Command RegisterBench(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", "Evaluate every solution of every task in a suite");
  sub->add_option("suite", args->suite, "A folder of task folders, or one task folder")->required();
  sub->add_option("--backend", args->backend, "cpu (.cpp solutions) or cuda (.cu solutions)")
      ->capture_default_str();
  sub->add_option("--only", args->only,
                  "Solution names to evaluate, comma-separated or repeated (e.g. --only fast)")
      ->delimiter(',')
      ->expected(1)
      ->allow_extra_args(false);
  AddEvalFlags(sub, args->flags);
  AddOutputFlags(sub, args->out);
  return [args] { return RunBench(*args); };
}

}  // namespace hone::cli
