// hone optimize TASK --model PROVIDER:MODEL: the LLM search for the fastest
// kernel that passes the verifier.
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <ctime>
#include <functional>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/resume_flags.h"
#include "cli/search_flags.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "core/paths.h"
#include "format/builtin_formats.h"
#include "llm/provenance.h"
#include "search/optimizer.h"
#include "search/run_record.h"
#include "session/optimize_session.h"
#include "task/task_loader.h"

namespace hone::cli {
namespace {

struct OptimizeArgs {
  std::string task, workloads, backend = kHostBackend, output, run_dir;
  std::string store, resume, name;
  bool no_lessons = false;
  SearchFlags search;
  EvalFlags flags;
  Output out;
  std::vector<std::string> given;  // flags given beside --resume (cli/resume_flags.h)
  // --resume: the stored configuration with the given flags restated over
  // it (set by RegisterOptimize, where the flags' variables are).
  std::function<nlohmann::json(const nlohmann::json& stored)> restate;
};

std::string DefaultRunDir(const std::string& task) {
  std::time_t t = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  return "hone-runs/" + task + "-" + stamp;
}

// Ctrl-C stops the search cleanly (calls in flight cancelled, the run kept
// for --resume); a second Ctrl-C ends the process at once, as SIGTERM does,
// both leaving no temporary files behind (core/interrupt_cleanup.h).
std::atomic<bool> g_interrupted{false};

extern "C" void OnInterrupt(int) {
  if (g_interrupted.exchange(true) && !EndAfterInterruptCleanup(SIGINT)) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

class InterruptHandler {
 public:
  InterruptHandler() {
    g_interrupted = false;
    InstallInterruptCleanup();  // first: OnInterrupt replaces its SIGINT handler
    previous_ = std::signal(SIGINT, OnInterrupt);
  }
  ~InterruptHandler() { std::signal(SIGINT, previous_); }

 private:
  void (*previous_)(int) = SIG_DFL;
};

// What a run is started with, stored so that --resume continues it the same
// way.
nlohmann::json ConfigOf(const OptimizeArgs& a) {
  nlohmann::json c = SearchFlagsToJson(a.search);
  c["task"] = AbsolutePath(a.task);
  c["workloads"] = AbsolutePath(a.workloads);
  c["backend"] = a.backend;
  c["output"] = AbsolutePath(a.output);
  c["run_dir"] = AbsolutePath(a.run_dir);
  c["flags"] = EvalFlagsToJson(a.flags);
  c["no_lessons"] = a.no_lessons;
  return c;
}

void ApplyConfig(const nlohmann::json& c, OptimizeArgs& a) {
  SearchFlagsFromJson(c, a.search);
  a.task = c.value("task", "");
  a.workloads = c.value("workloads", "");
  a.backend = c.value("backend", kHostBackend);
  a.output = c.value("output", "");
  a.run_dir = c.value("run_dir", "");
  a.flags = EvalFlagsFromJson(c.value("flags", nlohmann::json::object()));
  a.no_lessons = c.value("no_lessons", false);
}

// Opens the run to write: a new one (in a run folder of its own), or the
// stored one named by --resume (whose stored options replace the command
// line's).
Result<int64_t> OpenRun(Store& store, OptimizeArgs& a) {
  if (a.resume.empty()) {
    const bool numbered = a.run_dir.empty();
    if (numbered) a.run_dir = DefaultRunDir(std::filesystem::path(a.task).stem().string());
    HONE_ASSIGN_OR_RETURN(std::filesystem::path dir, RunRecord::Claim(a.run_dir, numbered));
    a.run_dir = dir.string();
    return store.CreateRun("optimize", JsonText(ConfigOf(a)), a.name);
  }
  HONE_ASSIGN_OR_RETURN(int64_t id, ResolveRun(store, a.resume));
  HONE_ASSIGN_OR_RETURN(RunRow run, store.GetRun(id));
  if (run.kind != "optimize")
    return Status::Invalid(
        fmt::format("--resume {}: run {} is a {} run; resume it with hone {} "
                    "--resume",
                    a.resume, id, run.kind, run.kind));
  auto config = nlohmann::json::parse(run.config, nullptr, false);
  if (!config.is_object() || config.value("task", "").empty())
    return Status::Invalid(
        fmt::format("--resume {}: run {} has no stored task (imported runs "
                    "cannot be resumed)",
                    a.resume, id));
  OptimizeArgs as_stored;
  ApplyConfig(config, as_stored);
  HONE_RETURN_IF_ERROR(CheckFlagsBesideResume(a.given, a.restate(config), ConfigOf(as_stored)));
  std::string given = a.task;
  ApplyConfig(config, a);
  if (!given.empty() && AbsolutePath(given) != a.task)
    return Status::Invalid(
        fmt::format("--resume {}: run {} optimizes {}, not {}", a.resume, id, a.task, given));
  HONE_RETURN_IF_ERROR(store.SetRunStatus(id, "running"));
  return id;
}

// The problem files a run optimizes: the task itself, or for a format whose
// problems come in parts (a FlashInfer-Trace definition's workloads, a
// robust-kbench task's configurations) the generated problem of each part,
// which the search scores every reply on (tune/parts.h); --workloads
// narrows a definition to the workloads of one file.
Result<std::vector<ProblemPart>> ProblemsToOptimize(const OptimizeArgs& a) {
  auto format = BuiltInFormats().ForProblem(a.task);
  // Native tasks and KernelBench files are optimized as they are (and a
  // path no format reads keeps the task loader's message).
  if (!format.ok() || (*format)->name() == "native" || (*format)->name() == "kernelbench") {
    if (!a.workloads.empty())
      return Status::Invalid("--workloads: only a FlashInfer-Trace definition takes workloads");
    return std::vector<ProblemPart>{{a.task, "", ""}};
  }
  return (*format)->Parts(a.task, PartOptions{a.workloads});
}

Status Validate(const OptimizeArgs& a) {
  if (a.resume.empty()) {
    if (a.task.empty()) return Status::Invalid("optimize: give a TASK (or --resume RUN)");
    if (a.search.model.empty()) return Status::Invalid("--model: required (unless --resume)");
  }
  HONE_RETURN_IF_ERROR(CheckBackendName(a.backend, "--backend"));
  HONE_RETURN_IF_ERROR(CheckOutputFile(a.output));
  return ValidateSearchFlags(a.search);
}

std::string ProgressLine(const OptimizeEvent& e) {
  return fmt::format(
      "[{} asked, {} in flight, {} evaluated, {} passed, best {:.2f}x, {} tokens, ${:.4f}, {:.0f} "
      "s] {}",
      e.spend.candidates, e.in_flight, e.evaluated, e.passed, e.spend.best_speedup,
      e.spend.tokens(), e.spend.dollars, e.spend.seconds, e.stage);
}

// Which lessons the prompts showed and how many this run taught.
void PrintLessons(const OptimizeResult& r) {
  std::string ids;
  for (int64_t id : r.lessons_shown) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
  if (!r.lessons_shown.empty() || r.lessons_added > 0)
    std::cout << fmt::format("lessons: {} from similar tasks shown{}; {} distilled from this run\n",
                             r.lessons_shown.size(), ids.empty() ? "" : " (" + ids + ")",
                             r.lessons_added);
}

// What the tree or auto strategy did, one line (their Summary()).
void PrintStrategySummary(const nlohmann::json& j) {
  if (!j.is_object()) return;
  if (j.contains("arms")) {
    std::string arms;
    for (const auto& a : j["arms"])
      arms += fmt::format("{}{} {} calls, gain {:.2f}", arms.empty() ? "" : "; ",
                          a["arm"].get<std::string>(), a["proposed"].get<int>(),
                          a["gain"].get<double>());
    std::cout << "arms: " << arms << "\n";
  } else if (j.contains("nodes")) {
    std::cout << fmt::format(
        "idea tree: {} nodes ({} ideas), {} passed, {} failed, {} expansions\n",
        j["nodes"].get<int>(), j["ideas"].get<int>(), j["passed"].get<int>(),
        j["failed"].get<int>(), j["expansions"].get<int>());
  }
}

void PrintSummary(const OptimizeResult& r, const std::filesystem::path& run_dir,
                  const std::string& output) {
  const Spend& s = r.spend;
  std::cout << "model: " << ProvenanceLine(r.provenance) << "\n";
  std::string verdicts;
  for (const auto& [name, n] : r.verdicts)
    verdicts += fmt::format("{}{} {}", verdicts.empty() ? "" : ", ", n, name);
  std::cout << fmt::format("stopped: {}\n", r.stop_reason);
  std::cout << fmt::format(
      "{} LLM calls ({} failed after retries, {} without usable code{}{}), {} evaluated: {}\n",
      s.candidates, r.llm_failures, r.extraction_failures,
      r.planning_calls ? fmt::format(", {} asking for ideas, not code", r.planning_calls) : "",
      r.cancelled ? fmt::format("; {} more cancelled", r.cancelled) : "", r.evaluated,
      verdicts.empty() ? "none" : verdicts);
  // When every call failed, the error that ends the command quotes it.
  if (r.llm_failures > 0 && r.llm_failures < s.candidates)
    std::cout << "last LLM failure: " << r.last_llm_error << "\n";
  if (r.best_id >= 0)
    std::cout << fmt::format(
        "best: candidate {} at {:.2f}x{}{}\n", r.best_id, s.best_speedup,
        r.best_verdict && r.best_verdict->timing.sol_percent > 0
            ? fmt::format(", {:.1f}% of speed of light", r.best_verdict->timing.sol_percent)
            : "",
        output.empty() ? "" : ", written to " + output);
  else
    std::cout << "best: none passed\n";
  std::cout << fmt::format("spent: {} input + {} output tokens, ${:.4f}, {:.1f} s\n",
                           s.input_tokens, s.output_tokens, s.dollars, s.seconds);
  PrintStrategySummary(r.strategy_summary);
  std::cout << "run record: " << run_dir.string() << "\n";
  if (r.replayed > 0 || r.stored_verdicts > 0)
    std::cout << fmt::format("resumed: {} stored replies and {} stored verdicts reused\n",
                             r.replayed, r.stored_verdicts);
  PrintLessons(r);
}

// What the session came to, on stdout and stderr; the exit code.
int Report(const OptimizeArgs& a, const OptimizeSessionEnd& end, int64_t run_id,
           const std::filesystem::path& store) {
  const OptimizeResult& result = end.result;
  if (!result.lessons_error.empty() && !a.out.json)
    std::fprintf(stderr, "hone: warning: no lessons distilled from this run: %s\n",
                 result.lessons_error.c_str());
  if (result.interrupted) {
    if (!a.out.json && !a.out.quiet) PrintSummary(result, a.run_dir, "");
    std::fprintf(stderr, "hone: interrupted; continue with: hone optimize --resume %lld%s\n",
                 static_cast<long long>(run_id),
                 a.store.empty() ? "" : (" --store " + a.store).c_str());
    return 130;
  }
  if (end.every_call_failed) {
    if (!a.out.json && !a.out.quiet) PrintSummary(result, a.run_dir, "");
    return ReportError(Status::Unavailable(
        fmt::format("every LLM call failed ({} of {}), so nothing was searched; the last: {}",
                    result.llm_failures, result.spend.candidates, result.last_llm_error)));
  }
  const bool wrote = !a.output.empty() && result.best_id >= 0;
  if (wrote) {
    if (Status st = WriteFileAtomic(a.output, result.best_code); !st.ok()) return ReportError(st);
  }
  if (a.out.json) {
    auto j = nlohmann::json::parse(end.summary);
    j["run_dir"] = a.run_dir;
    j["run_id"] = run_id;
    j["store"] = store.string();
    if (wrote) j["output"] = a.output;
    std::cout << JsonText(j, 2) << "\n";
  } else if (!a.out.quiet) {
    PrintSummary(result, a.run_dir, wrote ? a.output : "");
  }
  return kExitOk;
}

int RunOptimize(OptimizeArgs a) {
  bool resumed = !a.resume.empty();
  // A new run's flags, model and prompts are checked before anything is
  // stored: a bad option never leaves a junk run behind.
  Result<SearchSetup> setup = Status::Invalid("no search set up");
  Result<std::vector<ProblemPart>> problems = Status::Invalid("no problem resolved");
  if (!resumed) {
    if (Status st = Validate(a); !st.ok()) return ReportError(st);
    problems = ProblemsToOptimize(a);
    if (!problems.ok()) return ReportError(problems.status());
    setup = MakeSearchSetup(a.search);
    if (!setup.ok()) return ReportError(setup.status());
  }
  auto store = OpenStore(a.store);
  if (!store.ok()) return ReportError(store.status());
  auto run_id = OpenRun(**store, a);
  if (!run_id.ok()) return ReportError(run_id.status());
  auto fail = [&](const Status& st) {
    (void)(*store)->SetRunStatus(*run_id, "failed");
    return ReportError(st);
  };
  // A resumed run's stored options replaced the command line's: check them.
  if (resumed) {
    if (Status st = Validate(a); !st.ok()) return fail(st);
    setup = MakeSearchSetup(a.search);
    if (!setup.ok()) return fail(setup.status());
    problems = ProblemsToOptimize(a);  // the stored task and workloads
    if (!problems.ok()) return fail(problems.status());
  }
  auto eval = ToEvalOptions(a.flags);
  if (!eval.ok()) return fail(eval.status());
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return fail(sizes.status());

  OptimizeSession session{*problems,
                          a.backend,
                          a.flags.device,
                          *sizes,
                          SearchOptions(a.search),
                          store->get(),
                          *run_id,
                          resumed,
                          setup->provider.get(),
                          setup->prompts.get(),
                          setup->model,
                          a.search.strategy.name};
  session.languages = &BuiltInLanguages();
  session.options.eval = *eval;
  session.options.eval.metrics = !a.flags.no_metrics;
  session.options.sanitize_best = !a.flags.no_sanitize;
  session.options.run_dir = a.run_dir;
  session.options.interrupted = &g_interrupted;
  session.options.lessons = !a.no_lessons;
  if (!a.out.quiet && !a.out.json)
    std::fprintf(stderr, "hone: %s optimize run %lld in %s (%s)\n",
                 resumed ? "resuming" : "started", static_cast<long long>(*run_id),
                 (*store)->path().c_str(), a.run_dir.c_str());

  // The search loop and the threads making LLM calls both print.
  Progress progress(a.out);
  std::mutex print_mu;
  setup->provider->SetRetryNotice([&](const std::string& line) {
    std::lock_guard<std::mutex> lock(print_mu);
    progress.Line("hone: LLM call: " + line);
  });
  bool warned_sandbox = false;
  InterruptHandler interrupts;
  auto end = RunOptimizeSession(std::move(session), [&](const OptimizeEvent& e) {
    std::lock_guard<std::mutex> lock(print_mu);
    // What the sandbox could not apply on this machine, said once.
    if (!e.sandbox_missing.empty() && !warned_sandbox) {
      progress.Line("hone: warning: not in force in the sandbox on this machine: " +
                    e.sandbox_missing);
      warned_sandbox = true;
    }
    if (!e.notice.empty()) progress.Line(e.notice);
    progress.Show(ProgressLine(e));
  });
  progress.Clear();
  if (!end.ok()) return ReportError(end.status());
  return Report(a, *end, *run_id, (*store)->path());
}
}  // namespace

Command RegisterOptimize(CLI::App& app) {
  auto a = std::make_shared<OptimizeArgs>();
  CLI::App* sub = app.add_subcommand(
      "optimize", "Search with an LLM for the fastest kernel that passes the verifier");
  sub->add_option("task", a->task,
                  "Native task folder (with task.toml), PyTorch problem file (.py), "
                  "FlashInfer-Trace definition (.json) or robust-kbench task folder: every "
                  "workload or configuration scores each reply");
  sub->add_option("--workloads", a->workloads,
                  "A FlashInfer-Trace definition's workloads to optimize for (a .jsonl; default: "
                  "those the dataset's layout puts beside the definition)");
  sub->add_option("--resume", a->resume,
                  "Continue this optimize run (an id, or 'last') with its stored options: stored "
                  "replies and verdicts are reused, not asked or evaluated again");
  sub->add_option("--name", a->name, "A label for the run");
  sub->add_flag("--no-lessons", a->no_lessons,
                "Neither show lessons from similar tasks in the prompts nor distil lessons from "
                "this run (hone lessons)");
  AddStoreFlag(sub, a->store);
  sub->add_option("--backend", a->backend, "cpu (.cpp kernels) or cuda (.cu kernels)")
      ->capture_default_str();
  AddSearchFlags(sub, a->search, "the search");
  sub->add_option("-o,--output", a->output, "Write the best kernel here");
  sub->add_option("--run-dir", a->run_dir,
                  "Where the run record goes (default hone-runs/TASK-TIME)");
  AddEvalFlags(sub, a->flags);
  AddNoSanitizeFlag(sub, a->flags);
  AddNoMetricsFlag(sub, a->flags);
  AddOutputFlags(sub, a->out);
  return [a, sub] {
    a->given = GivenFlags(*sub, {"task", "--store", "--json", "--quiet", "--log"});
    // Called once, by --resume: the stored options go into the variables the
    // flags are bound to, and the given flags are set again over them.
    OptimizeArgs* bound = a.get();
    a->restate = [bound, sub](const nlohmann::json& stored) {
      ApplyConfig(stored, *bound);
      RestateGivenFlags(*sub, bound->given);
      return ConfigOf(*bound);
    };
    return RunOptimize(*a);
  };
}

}  // namespace hone::cli
