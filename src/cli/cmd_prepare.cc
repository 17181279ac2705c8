// hone prepare PROBLEM...: what the first evaluation of a problem on this
// machine would otherwise pay, paid once beforehand. A PyTorch problem's
// speedups are measured against its eager and torch.compile baselines,
// which hone times once per (problem, sizes, device, torch) and caches
// (compat/baseline_cache.h); on a fresh H200 that is 12-20 s of a full-size
// problem's first evaluation, torch.compile's compile most of it. KernelBench
// ships such times per GPU; `hone prepare` measures them on this machine, the
// way a later `hone eval` or `hone bench` reads them: it evaluates each
// problem's own Model as the candidate (a subclass named ModelNew, library
// calls allowed), which starts the oracle, measures the machine's ceilings
// and times and caches both baselines. Before that it builds what a first
// candidate would otherwise build (ModelNewLoading::warm_up: torch's precompiled
// extension headers for load_inline files, 25-30 s on a fresh H200). The
// evaluation flags that change what is timed (sizes, the baselines asked
// for) must match the later runs'.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "core/fs.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "core/temp_dir.h"
#include "format/builtin_formats.h"
#include "task/reference_kind.h"
#include "tune/autotune.h"

namespace hone::cli {
namespace {

struct PrepareArgs {
  std::vector<std::string> problems;
  EvalFlags flags;
  std::string backend;
  Output out;
};

// What one part of one problem got.
struct Prepared {
  std::string problem, part;
  Result<Verdict> verdict = Status::Internal("not prepared");
  std::string skipped{};  // why nothing was to be timed (ReferencePrograms::BaselinesCandidate)
};

std::string Milliseconds(const std::optional<TimingResult>& t) {
  return t ? fmt::format("{:.3f} ms", t->summary.median * 1e3) : "none";
}

std::string Line(const Prepared& p) {
  std::string name = p.problem + (p.part.empty() ? "" : " [" + p.part + "]");
  if (!p.skipped.empty()) return name + ": nothing to time (" + p.skipped + ")";
  if (!p.verdict.ok()) return name + ": error: " + p.verdict.status().message();
  const Verdict& v = *p.verdict;
  if (v.status != VerdictStatus::kPassed || !v.timing.reference_time)
    return fmt::format("{}: baselines not timed: its own Model got {}: {}", name,
                       StatusName(v.status), v.reason);
  return fmt::format(
      "{}: eager {}, torch.compile {}{} ({:.1f} s)", name, Milliseconds(v.timing.reference_time),
      Milliseconds(v.timing.compile_time),
      v.timing.compile_unavailable.empty() ? "" : " (" + v.timing.compile_unavailable + ")",
      v.total_seconds);
}

nlohmann::json Json(const Prepared& p) {
  nlohmann::json j = {{"problem", p.problem}, {"part", p.part}};
  if (!p.skipped.empty()) return j.update({{"skipped", p.skipped}}), j;
  if (!p.verdict.ok()) return j.update({{"error", p.verdict.status().message()}}), j;
  const Verdict& v = *p.verdict;
  j["status"] = StatusName(v.status);
  j["reason"] = v.reason;
  j["eager_seconds"] =
      v.timing.reference_time ? nlohmann::json(v.timing.reference_time->summary.median) : nullptr;
  j["compile_seconds"] =
      v.timing.compile_time ? nlohmann::json(v.timing.compile_time->summary.median) : nullptr;
  j["compile_unavailable"] = v.timing.compile_unavailable;
  j["seconds"] = v.total_seconds;
  return j;
}

bool Failed(const Prepared& p) {
  return p.skipped.empty() && (!p.verdict.ok() || p.verdict->status != VerdictStatus::kPassed ||
                               !p.verdict->timing.reference_time);
}

// What a first candidate would otherwise build on this machine (load_inline:
// torch's precompiled extension headers), built now; one line for them all.
// A failed build is said and costs only that candidate's time, so it does
// not fail the command.
std::vector<Evaluator::WarmUpBuild> WarmUp(Evaluator& evaluator, const std::string& backend,
                                           const std::filesystem::path& dir, const Output& out,
                                           Progress& progress) {
  progress.Show("hone prepare: building what first candidates build (torch extension headers)");
  auto warmed = evaluator.WarmUp(backend, dir, [&](int done, int total) {
    progress.Show(fmt::format("hone prepare: warm-up builds {}/{}", done, total));
  });
  progress.Clear();
  if (warmed.empty() || out.json || out.quiet) return warmed;
  int ok = 0;
  double seconds = 0;
  for (const auto& w : warmed) {
    ok += w.ok;
    seconds = std::max(seconds, w.seconds);
  }
  std::cout << fmt::format("warm-up builds for first candidates: {} of {} built ({:.1f} s)", ok,
                           warmed.size(), seconds)
            << std::endl;
  for (const auto& w : warmed)
    if (!w.ok) std::cout << "  " << w.language << ": not built: " << w.error << std::endl;
  return warmed;
}

int RunPrepare(const PrepareArgs& a) {
  auto options = ToEvalOptions(a.flags);
  if (!options.ok()) return ReportError(options.status());
  if (!options->time)
    return ReportError(Status::Invalid("--no-time: hone prepare is there to time baselines"));
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  // Every problem is read before anything runs: a typo is exit 2 at once.
  std::vector<std::pair<std::string, std::vector<ProblemPart>>> problems;
  for (const std::string& p : a.problems) {
    auto format = BuiltInFormats().ForProblem(p);
    if (!format.ok()) return ReportError(format.status());
    auto parts = (*format)->Parts(p, PartOptions{});
    if (!parts.ok()) return ReportError(parts.status());
    problems.emplace_back(p, std::move(*parts));
  }
  auto made = MakeTempDir(std::filesystem::temp_directory_path(), "hone-prepare");
  if (!made.ok()) return ReportError(made.status());
  const TempDirOwner scratch(*made);
  // Ctrl-C or SIGTERM leaves no temporary files behind: the scratch folder,
  // the oracle's, the compat builds' (core/interrupt_cleanup.h).
  InstallInterruptCleanup();
  RemoveOnInterrupt(scratch.path());
  // Its backend is a ModelNew file's: written first, as CandidateBackend
  // reads a file's language from its text.
  const std::filesystem::path stub = scratch.path() / "model.py";
  if (Status st = WriteFileAtomic(stub, "import torch\n"); !st.ok()) return ReportError(st);
  auto backend = CandidateBackend(stub.string(), a.backend, BuiltInLanguages());
  if (!backend.ok()) return ReportError(backend.status());
  options->backend = *backend;
  options->lint_allow.insert("library");  // the Model is torch's own code
  options->metrics = false;
  options->sanitize = false;
  auto ctx = MakeEvalContext(BuiltInLanguages(), *backend, a.flags.device);
  if (!ctx.ok()) return ReportError(ctx.status());
  if (Status st = StartOracle(**ctx, *backend); !st.ok()) return ReportError(st);
  Evaluator evaluator((*ctx)->env, (*ctx)->oracle.get());
  evaluator.PrewarmCompat(*backend, *options);
  Builder* builder = &(*ctx)->backend(*backend).builder();
  std::vector<Prepared> done;
  Progress progress(a.out);
  const auto warmed = WarmUp(evaluator, *backend, scratch.path(), a.out, progress);
  for (const auto& [problem, parts] : problems)
    for (const ProblemPart& part : parts) {
      Prepared p{problem, part.label};
      progress.Show("hone prepare: loading " + problem);
      auto task = LoadTask(**ctx, part.load.string(), *backend, *sizes);
      if (!task.ok()) {
        p.verdict = task.status();
      } else if (auto file = KindOf(*task).programs().BaselinesCandidate(*task, scratch.path());
                 !file.ok()) {
        if (file.status().code() == StatusCode::kUnavailable)
          p.skipped = file.status().message();
        else
          p.verdict = file.status();
      } else {
        p.verdict = EvaluateCandidate(evaluator, builder, *task, *file, *options,
                                      [&](const std::string& stage) {
                                        progress.Show("hone prepare " + task->name + ": " + stage);
                                      });
      }
      progress.Clear();
      if (!a.out.json && !a.out.quiet) std::cout << Line(p) << std::endl;
      done.push_back(std::move(p));
    }
  int failed = 0;
  nlohmann::json all = nlohmann::json::array();
  for (const Prepared& p : done) {
    failed += Failed(p);
    all.push_back(Json(p));
  }
  nlohmann::json builds = nlohmann::json::array();
  for (const Evaluator::WarmUpBuild& w : warmed)
    builds.push_back({{"language", w.language},
                      {"ok", w.ok},
                      {"cached", w.cached},
                      {"seconds", w.seconds},
                      {"error", w.error}});
  if (a.out.json)
    std::cout << JsonText(nlohmann::json({{"prepared", all}, {"warm_up_builds", builds}}), 2)
              << "\n";
  return failed ? kExitFailure : kExitOk;
}

}  // namespace

Command RegisterPrepare(CLI::App& app) {
  auto args = std::make_shared<PrepareArgs>();
  CLI::App* sub = app.add_subcommand(
      "prepare",
      "Time and cache the baselines of PyTorch problems (eager, torch.compile) on this machine, "
      "so that their first evaluation does not");
  sub->add_option("problems", args->problems,
                  "Problems of any format: KernelBench files, FlashInfer-Trace definitions, "
                  "robust-kbench task folders")
      ->required();
  AddEvalFlags(sub, args->flags);
  sub->add_option("--backend", args->backend, "cpu or cuda (default: cuda when a GPU is present)");
  AddOutputFlags(sub, args->out);
  return [args] { return RunPrepare(*args); };
}

}  // namespace hone::cli
