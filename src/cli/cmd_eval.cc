// hone eval TASK CANDIDATE: build, verify and time one candidate.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "report/verdict_json.h"
#include "report/verdict_text.h"
#include "task/task_loader.h"

namespace hone::cli {
namespace {

struct EvalArgs {
  std::string task;
  std::string candidate;
  EvalFlags flags;
  Output out;
};

int RunEval(const EvalArgs& a) {
  auto options = ToEvalOptions(a.flags);
  if (!options.ok()) return ReportError(options.status());
  auto task = LoadNativeTask(a.task);
  if (!task.ok()) return ReportError(task.status());
  if (!std::filesystem::is_regular_file(a.candidate))
    return ReportError(Status::Invalid(a.candidate + ": candidate file not found"));
  auto ctx = MakeEvalContext(BackendForSource(a.candidate) == "cuda", a.flags.device);
  if (!ctx.ok()) return ReportError(ctx.status());
  Evaluator evaluator((*ctx)->env);
  Progress progress(a.out);
  auto verdict = evaluator.Evaluate(*task, a.candidate, *options, [&](const std::string& stage) {
    progress.Show("hone eval " + task->name + ": " + stage);
  });
  progress.Clear();
  if (!verdict.ok()) return ReportError(verdict.status());
  if (!verdict->sandbox_missing.empty())
    std::fprintf(stderr, "hone: warning: not in force in the sandbox on this machine: %s\n",
                 verdict->sandbox_missing.c_str());
  if (a.out.json) {
    std::cout << VerdictToJson(*verdict).dump(2) << "\n";
  } else {
    std::cout << FormatVerdict(*verdict, a.out.terminal && isatty(1));
  }
  return kExitOk;
}

}  // namespace

Command RegisterEval(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* sub = app.add_subcommand("eval", "Build, verify and time one candidate on a task");
  sub->add_option("task", args->task, "Native task folder (with task.toml)")->required();
  sub->add_option("candidate", args->candidate,
                  "Candidate source: .cpp for the CPU backend, .cu for CUDA")
      ->required();
  AddEvalFlags(sub, args->flags);
  AddOutputFlags(sub, args->out);
  return [args] { return RunEval(*args); };
}

}  // namespace hone::cli
