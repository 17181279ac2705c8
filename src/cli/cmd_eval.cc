// hone eval TASK CANDIDATE: build, verify and time one candidate.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "core/trace.h"
#include "report/verdict_text.h"
#include "search/autotune.h"
#include "task/task_loader.h"
#include "verify/verdict_json.h"

namespace hone::cli {
namespace {

struct EvalArgs {
  std::string task;
  std::string candidate;
  EvalFlags flags;
  std::string backend;  // ModelNew (.py) candidates of languages that run on several: cpu or cuda
  Output out;
};

int RunEval(const EvalArgs& a) {
  auto options = ToEvalOptions(a.flags);
  if (!options.ok()) return ReportError(options.status());
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  if (Status st = CheckCandidateFile(a.candidate); !st.ok()) return ReportError(st);
  auto backend = CandidateBackend(a.candidate, a.backend);
  if (!backend.ok()) return ReportError(backend.status());
  options->backend = *backend;
  Trace("eval: arguments read");
  auto ctx = MakeEvalContext(*backend, a.flags.device);
  if (!ctx.ok()) return ReportError(ctx.status());
  Trace("eval: backends open");
  Progress loading(a.out);
  loading.Show("hone eval: loading " + a.task);
  // The oracle first, so that a ModelNew candidate's sandbox starts Python
  // and torch while the oracle loads the problem.
  if (IsPyTorchTaskFile(a.task))
    if (Status st = StartOracle(**ctx, *backend); !st.ok()) return ReportError(st);
  // The oracle is started before the evaluator is made for a PyTorch task,
  // and LoadTask keeps it: the backend's device does not change.
  Evaluator evaluator((*ctx)->env, (*ctx)->oracle.get());
  if (auto language = BuiltInLanguages().ForFile(a.candidate);
      language.ok() && (*language)->modelnew())
    evaluator.PrewarmCompat(*backend, *options);
  Trace("eval: loading the task");
  auto task = LoadTask(**ctx, a.task, *backend, *sizes);
  Trace("eval: task loaded");
  loading.Clear();
  if (!task.ok()) return ReportError(task.status());
  Progress progress(a.out);
  // A candidate that declares tunables is evaluated as each of its variants.
  Builder* builder = &(*ctx)->backend(*backend).builder();
  auto verdict = EvaluateTuned(evaluator, builder, *task, a.candidate, *options,
                               [&](const std::string& stage) {
                                 Trace("eval: stage " + stage);
                                 progress.Show("hone eval " + task->name + ": " + stage);
                               });
  progress.Clear();
  Trace("eval: verdict");
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
  sub->add_option("task", args->task,
                  "Native task folder (with task.toml) or PyTorch problem file (.py)")
      ->required();
  sub->add_option("candidate", args->candidate,
                  "Candidate source: .cpp for the CPU backend, .cu for CUDA, or a KernelBench "
                  "ModelNew file (.py, PyTorch tasks only)")
      ->required();
  AddEvalFlags(sub, args->flags);
  AddSanitizeFlag(sub, args->flags);
  AddMetricsFlag(sub, args->flags);
  sub->add_option("--backend", args->backend,
                  "Compat (.py) candidates: cpu or cuda (default: cuda when a GPU is present)");
  AddOutputFlags(sub, args->out);
  return [args] { return RunEval(*args); };
}

}  // namespace hone::cli
