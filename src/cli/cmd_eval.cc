// hone eval TASK CANDIDATE: build, verify and time one candidate.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "compat/compat_scan.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "core/paths.h"
#include "core/trace.h"
#include "format/builtin_formats.h"
#include "lang/builtin.h"
#include "pytorch/compat_stages.h"
#include "report/verdict_text.h"
#include "task/reference_kind.h"
#include "task/task_loader.h"
#include "tune/autotune.h"
#include "verify/note_words.h"
#include "verify/verdict_json.h"

namespace hone::cli {
namespace {

struct EvalArgs {
  std::string task;
  std::string candidate;
  std::string workloads;  // a FlashInfer-Trace definition's workload file
  EvalFlags flags;
  std::string backend;  // ModelNew (.py) candidates of languages that run on several: cpu or cuda
  Output out;
};

// One part's evaluation (format/task_format.h): the whole verdict of a
// problem of one part.
struct PartVerdict {
  ProblemPart part;
  Result<Verdict> verdict = Status::Internal("not evaluated");
};

// A ModelNew file that does not parse or defines no ModelNew fails on any
// problem: its verdict comes before the problem is loaded (a full-size
// KernelBench problem takes minutes to load on a CPU), and no oracle is
// started only to be waited for. nullopt: the problem is needed to decide
// (or the scan could not run, which the evaluation then says).
std::optional<Verdict> VerdictBeforeLoading(const FormatCandidate& candidate,
                                            const std::string& backend,
                                            const LanguageRegistry& languages,
                                            const BackendRegistry& backends) {
  auto language = languages.ForFile(candidate.file);
  if (!language.ok() || !(*language)->run.modelnew()) return std::nullopt;
  auto python_dir = FindPythonDir();
  if (!python_dir.ok()) return std::nullopt;
  auto scan = ScanCompatFile(candidate.file, *python_dir, "", languages.KernelDecorators());
  if (!scan.ok()) return std::nullopt;
  auto failure = FailsWhateverTheProblem(*scan);
  if (!failure) return std::nullopt;
  Verdict v;
  v.status = VerdictStatus::kCompileError;
  v.reason = *failure;
  v.candidate = candidate.file.string();
  v.backend = backend;
  const BackendKind* kind = backends.Kind(backend);
  v.timing.event_timed = kind && kind->traits.event_timing;
  v.language = (*language)->name;
  return v;
}

// Evaluates the candidate on each part in turn, with one oracle and one
// evaluator for all; `early`: its verdict before loading, for every part.
std::vector<PartVerdict> EvaluateParts(const EvalArgs& a, const std::vector<ProblemPart>& parts,
                                       const FormatCandidate& candidate, EvalOptions& options,
                                       const SizePolicy& sizes, EvalContext& ctx,
                                       const std::optional<Verdict>& early) {
  const std::string& backend = options.backend;
  std::vector<PartVerdict> out;
  if (early) {
    Trace("eval: verdict before loading the problem");
    for (const ProblemPart& part : parts) {
      Verdict v = *early;
      v.task = part.load.stem().string();
      out.push_back({part, std::move(v)});
    }
    return out;
  }
  Progress loading(a.out);
  loading.Show("hone eval: loading " + a.task);
  // The oracle first, so that a ModelNew candidate's sandbox starts Python
  // and torch while the oracle loads the problem.
  bool oracle = std::any_of(parts.begin(), parts.end(),
                            [](const ProblemPart& p) { return LoadsThroughOracle(p.load); });
  if (oracle)
    if (Status st = StartOracle(ctx, backend); !st.ok()) {
      out.push_back({parts.front(), st});
      return out;
    }
  // The oracle is started before the evaluator is made for a PyTorch task,
  // and LoadTask keeps it: the backend's device does not change.
  Evaluator evaluator(ctx.env, ctx.oracle.get());
  if (auto language = ctx.env.languages.ForFile(candidate.file);
      language.ok() && (*language)->run.modelnew() && oracle) {
    evaluator.PrewarmCompat(backend, options);
    // Its compile overlaps the problem's load (seconds at full size).
    Trace("eval: starting the candidate's builds");
    evaluator.StartCompatBuild(candidate.file);
  }
  Builder* builder = &ctx.backend(backend).builder();
  for (size_t i = 0; i < parts.size(); ++i) {
    const ProblemPart& part = parts[i];
    std::string which =
        parts.size() > 1 ? fmt::format(" [{}/{}] {}", i + 1, parts.size(), part.label) : "";
    Trace("eval: loading the task" + which);
    loading.Show("hone eval: loading " + a.task + which);
    auto task = LoadTask(ctx, part.load.string(), backend, sizes);
    loading.Clear();
    if (!task.ok()) {
      out.push_back({part, task.status()});
      if (task.status().code() == StatusCode::kInvalidInput) return out;
      continue;
    }
    Progress progress(a.out);
    // A candidate that declares tunables is evaluated as each of its variants.
    auto verdict = EvaluateTuned(evaluator, builder, *task, candidate.file.string(), options,
                                 [&](const std::string& stage) {
                                   Trace("eval: stage " + stage);
                                   progress.Show("hone eval " + task->name + which + ": " + stage);
                                 });
    progress.Clear();
    out.push_back({part, std::move(verdict)});
  }
  return out;
}

void WarnSandboxMissing(const std::vector<PartVerdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.verdict.ok() && !v.verdict->sandbox.missing.empty()) {
      std::fprintf(stderr, "hone: warning: not in force in the sandbox on this machine: %s\n",
                   v.verdict->sandbox.missing.c_str());
      return;
    }
}

// A part's status in its format's words, else hone's.
std::string PartStatus(const TaskFormat& format, const Verdict& v) {
  std::string s = format.StatusOf(v);
  return s.empty() ? std::string(StatusName(v.status)) : s;
}

// The verdicts of a problem of several parts (a FlashInfer-Trace
// definition's workloads): one status per part, in the format's words.
int PrintParts(const EvalArgs& a, const TaskFormat& format, const FormatCandidate& candidate,
               const std::vector<PartVerdict>& verdicts) {
  int failed = 0;
  if (a.out.json) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& v : verdicts) {
      nlohmann::json p = {{"label", v.part.label}, {"id", v.part.id}};
      if (v.verdict.ok()) {
        p["status"] = PartStatus(format, *v.verdict);
        p["verdict"] = VerdictToJson(*v.verdict);
      } else {
        p["error"] = v.verdict.status().message();
        ++failed;
      }
      parts.push_back(std::move(p));
    }
    std::cout << JsonText(nlohmann::json({{"format", format.name()},
                                          {"problem", a.task},
                                          {"candidate", a.candidate},
                                          {"solution", candidate.name},
                                          {"note", candidate.note},
                                          {"parts", parts}}),
                          2)
              << "\n";
    return failed ? kExitFailure : kExitOk;
  }
  bool color = a.out.terminal && isatty(1);
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const auto& v = verdicts[i];
    std::cout << fmt::format("== {} {}/{}: {}\n", format.name(), i + 1, verdicts.size(),
                             v.part.label);
    if (!v.verdict.ok()) {
      std::cout << "error: " << v.verdict.status().message() << "\n\n";
      ++failed;
      continue;
    }
    // The file the user gave, not the one hone generated from it (said in a
    // note): the user's file is what they will open.
    Verdict shown = *v.verdict;
    if (!a.candidate.empty() && shown.candidate != a.candidate) {
      shown.AddNote(notes::EvaluatedAs(shown.candidate));
      shown.candidate = a.candidate;
    }
    std::cout << "status: " << PartStatus(format, *v.verdict) << "\n"
              << FormatVerdict(shown, color) << "\n";
  }
  std::cout << fmt::format("{} {}: ", a.task,
                           candidate.name.empty() ? a.candidate : candidate.name);
  for (size_t i = 0; i < verdicts.size(); ++i)
    std::cout << (i ? ", " : "")
              << (verdicts[i].verdict.ok() ? PartStatus(format, *verdicts[i].verdict) : "ERROR");
  std::cout << "\n";
  return failed ? kExitFailure : kExitOk;
}

int RunEval(const EvalArgs& a) {
  // The registries every step below reads: taken once here, passed down.
  const LanguageRegistry& languages = BuiltInLanguages();
  auto options = ToEvalOptions(a.flags);
  if (!options.ok()) return ReportError(options.status());
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  auto format = BuiltInFormats().ForProblem(a.task);
  if (!format.ok()) return ReportError(format.status());
  auto parts = (*format)->Parts(a.task, PartOptions{a.workloads});
  if (!parts.ok()) return ReportError(parts.status());
  auto candidate = (*format)->Candidate(a.task, a.candidate);
  if (!candidate.ok()) return ReportError(candidate.status());
  const std::string file = candidate->file.string();
  if (Status st = CheckCandidateFile(file, languages); !st.ok()) return ReportError(st);
  options->lint_allow.insert(candidate->allow.begin(), candidate->allow.end());
  auto backend = CandidateBackend(file, a.backend, languages);
  if (!backend.ok()) return ReportError(backend.status());
  options->backend = *backend;
  Trace("eval: arguments read");
  // Ctrl-C leaves no temporary files behind (core/interrupt_cleanup.h).
  InstallInterruptCleanup();
  // A candidate that fails whatever the problem is decided before any
  // oracle starts; else, for a problem loaded through the oracle, the oracle
  // starts importing torch before the backends measure a fresh machine.
  const std::optional<Verdict> early =
      VerdictBeforeLoading(*candidate, *backend, languages, BuiltInBackends());
  const bool oracle = !early && std::any_of(parts->begin(), parts->end(), [](const ProblemPart& p) {
    return LoadsThroughOracle(p.load);
  });
  auto ctx = MakeEvalContext(languages, *backend, a.flags.device, oracle);
  if (!ctx.ok()) return ReportError(BackendFailureFor(file, *backend, ctx.status(), languages));
  Trace("eval: backends open");
  auto verdicts = EvaluateParts(a, *parts, *candidate, *options, *sizes, **ctx, early);
  Trace("eval: verdict");
  // The process ends once the verdict is out: the oracle's graceful exit
  // would hold it for a second more.
  if ((*ctx)->oracle) (*ctx)->oracle->Abandon();
  WarnSandboxMissing(verdicts);
  // A format with statuses of its own (FlashInfer-Trace) says them per part;
  // one part of a format without says its verdict as hone always has.
  if (parts->size() > 1 || !(*format)->StatusOf(Verdict()).empty())
    return PrintParts(a, **format, *candidate, verdicts);
  const auto& only = verdicts.front().verdict;
  if (!only.ok()) return ReportError(only.status());
  if (a.out.json) {
    std::cout << JsonText(VerdictToJson(*only), 2) << "\n";
  } else {
    std::cout << FormatVerdict(*only, a.out.terminal && isatty(1));
  }
  return kExitOk;
}

}  // namespace

Command RegisterEval(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* sub = app.add_subcommand("eval", "Build, verify and time one candidate on a task");
  sub->add_option("task", args->task,
                  "The problem: a native task folder (task.toml), a KernelBench problem file "
                  "(.py) or a FlashInfer-Trace definition (.json)")
      ->required();
  sub->add_option("candidate", args->candidate,
                  "Candidate source: .cpp for the CPU backend, .cu for CUDA, a KernelBench "
                  "ModelNew file (.py), or a FlashInfer-Trace solution (.json)")
      ->required();
  sub->add_option("--workloads", args->workloads,
                  "A FlashInfer-Trace definition's workloads (.jsonl; default: where the "
                  "dataset's layout puts them)");
  AddEvalFlags(sub, args->flags);
  AddSanitizeFlag(sub, args->flags);
  AddMetricsFlag(sub, args->flags);
  sub->add_option("--backend", args->backend,
                  "Compat (.py) candidates: cpu or cuda (default: cuda when a GPU is present)");
  AddOutputFlags(sub, args->out);
  return [args] { return RunEval(*args); };
}

}  // namespace hone::cli
