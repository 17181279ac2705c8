// hone bench SUITE: scores a set of candidates per task (a suite's solution
// files, or the candidates of a stored run) and reports KernelBench's
// metrics. Every unit of work goes through the run store, so a bench killed
// at any point (kill -9 included) continues with `hone bench --resume RUN`:
// finished units are never evaluated again, a unit cut off mid-evaluation is
// evaluated once more. docs/BENCH.md is the user's page.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "bench/listener.h"
#include "bench/plan.h"
#include "bench/scheduler.h"
#include "bench/tally.h"
#include "cli/commands.h"
#include "cli/device_list.h"
#include "cli/eval_flags.h"
#include "cli/interrupt_hint.h"
#include "cli/resume_flags.h"
#include "cli/search_flags.h"
#include "cli/store_flags.h"
#include "core/backend_names.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "format/builtin_formats.h"
#include "report/run_data.h"
#include "report/verdict_text.h"
#include "task/reference_kind.h"
#include "task/suite.h"
#include "task/task_loader.h"
#include "verify/verdict_json.h"

namespace hone::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct BenchArgs {
  std::string suite;
  std::string backend;            // empty: cuda with --devices, else cpu
  std::vector<std::string> only;  // solution file stems to keep
  std::string solutions;          // PyTorch suites: where the solutions are
  std::string from_run;           // score the candidates of this stored run
  std::string resume;             // continue this bench run
  std::string name;
  std::string store;
  // Where the units are evaluated (cli/device_list.h): not stored with the
  // run, so a resumed bench runs where its --resume command says.
  std::string devices;
  int lanes = 0;                  // 0: not given
  std::vector<int> lane_devices;  // resolved: one device per lane
  SearchFlags search;             // with --model: each task's candidates come from an LLM search
  EvalFlags flags;
  Output out;
  std::vector<std::string> given;  // flags given beside --resume (cli/resume_flags.h)
  // --resume: the stored configuration with the given flags restated over
  // it (set by RegisterBench, where the flags' variables are).
  std::function<json(const json& stored)> restate;
};

// What a run is started with, stored so that --resume does the same work.
json ConfigOf(const BenchArgs& a) {
  return {{"suite", AbsolutePath(a.suite)},
          {"backend", a.backend},
          {"only", a.only},
          {"solutions", AbsolutePath(a.solutions)},
          {"from_run", a.from_run},
          {"search", a.search.model.empty() ? json(nullptr) : SearchFlagsToJson(a.search)},
          {"flags", EvalFlagsToJson(a.flags)}};
}

void ApplyConfig(const json& c, BenchArgs& a) {
  a.suite = c.value("suite", "");
  a.backend = c.value("backend", kHostBackend);
  a.only = c.value("only", std::vector<std::string>{});
  a.solutions = c.value("solutions", "");
  a.from_run = c.value("from_run", "");
  a.flags = EvalFlagsFromJson(c.value("flags", json::object()));
  if (c.contains("search") && c["search"].is_object()) SearchFlagsFromJson(c["search"], a.search);
}

// The evaluation settings in the store's work keys (run/eval_options.h):
// a resumed bench re-uses only verdicts measured the same way.
std::string OptionsHash(const BenchArgs& a, const EvalOptions& options) {
  auto sizes = ToSizePolicy(a.flags);  // validated before the run started
  return EvalIdentity(a.backend, options, sizes.ok() ? sizes->text() : "");
}

// The unit column's width: the plan's longest label, at least 34 and at
// most kMostUnitWidth (a multi-part task's labels name the part, whose rows
// differ only there).
constexpr size_t kLeastUnitWidth = 34, kMostUnitWidth = 96;

// A unit's label in `width` bytes: a longer one keeps its start and its end
// (the solution), cut on character boundaries.
std::string FitLabel(const std::string& label, size_t width) {
  if (label.size() <= width) return label;
  auto continuation = [&](size_t at) {
    return at < label.size() && (static_cast<unsigned char>(label[at]) & 0xC0) == 0x80;
  };
  size_t head = width / 2;
  while (head > 0 && continuation(head)) --head;
  size_t tail = label.size() - (width - width / 2 - 3);
  while (continuation(tail)) ++tail;
  return label.substr(0, head) + "..." + label.substr(tail);
}

// One unit's row of the table; RowHeader names its columns.
std::string RowCells(size_t width, const std::string& label, const std::string& status,
                     const std::string& cand, const std::string& ref, const std::string& speedup,
                     const std::string& sol) {
  return fmt::format("{:<{}} {:<14} {:>11} {:>11} {:>8} {:>6}", FitLabel(label, width), width,
                     status, cand, ref, speedup, sol);
}

std::string RowHeader(size_t width) {
  return RowCells(width, "unit", "status", "candidate", "reference", "speedup", "SOL%");
}

std::string Row(size_t width, const std::string& label, const std::string& status,
                const std::optional<double>& cand_us, const std::optional<double>& ref_us,
                const std::optional<double>& speedup, const std::optional<double>& sol) {
  auto us = [](const std::optional<double>& x) {
    return x ? FormatSeconds(*x * 1e-6) : std::string("-");
  };
  return RowCells(width, label, status, us(cand_us), us(ref_us),
                  speedup ? fmt::format("{:.2f}x", *speedup) : "-",
                  sol && *sol > 0 ? fmt::format("{:.1f}", *sol) : "-");
}

// What the bench says, shown as the CLI shows things: a progress line,
// problems on stderr, a table row per unit on stdout (not with --json or
// --quiet), and every kept line in the --log file.
class CliBenchListener : public BenchListener {
 public:
  CliBenchListener(Progress& progress, const Output& out) : progress_(progress), out_(out) {}
  void Show(const std::string& line) override { progress_.Show(line); }
  void TaskProblem(const std::string& message) override {
    progress_.Clear();
    std::fprintf(stderr, "hone: %s\n", message.c_str());
    progress_.Note(message);
  }
  void PlanWarning(const std::string& message) override {
    std::fprintf(stderr, "hone: %s\n", message.c_str());
  }
  void Resumed(int done, int total, size_t todo) override {
    if (!out_.quiet && !out_.json)
      std::fprintf(stderr, "hone: %d of %d already evaluated; %zu to go\n", done, total, todo);
  }
  void Evaluating() override { Keep(RowHeader(unit_width_)); }
  // The unit column as wide as the longest of `units`' labels (bounded).
  void FitUnits(const std::vector<BenchUnit>& units) {
    for (const BenchUnit& u : units) unit_width_ = std::max(unit_width_, u.label.size());
    unit_width_ = std::min(unit_width_, kMostUnitWidth);
  }
  void LaneRetired(const std::string& lane, const std::string& message) override {
    std::string line = fmt::format("warning: {} takes no more units: {}; the other lanes take them",
                                   lane, message);
    progress_.Clear();
    std::fprintf(stderr, "hone: %s\n", line.c_str());
    progress_.Note(line);
  }
  void UnitDone(const BenchUnit& u, const Verdict& v) override;
  // A line for the log and, unless --json or --quiet, stdout.
  void Keep(const std::string& line, const std::string& more = "") {
    progress_.Note(line);
    if (out_.json || out_.quiet) return;
    progress_.Clear();
    std::cout << line << "\n" << more << std::flush;
  }

 private:
  Progress& progress_;
  const Output& out_;
  size_t unit_width_ = kLeastUnitWidth;
};

void CliBenchListener::UnitDone(const BenchUnit& u, const Verdict& v) {
  auto us = [](const std::optional<TimingResult>& t) {
    return t ? std::optional<double>(t->summary.median * 1e6) : std::nullopt;
  };
  std::optional<double> speedup, sol;
  if (v.timing.speedup > 0) speedup = v.timing.speedup;
  if (v.timing.sol_percent > 0) sol = v.timing.sol_percent;
  std::string status(StatusName(v.status));
  std::string row = Row(unit_width_, u.label, status, us(v.timing.candidate_time),
                        us(v.timing.reference_time), speedup, sol);
  bool passed = v.status == VerdictStatus::kPassed;
  // The reason as a terminal can show it: valid UTF-8, cut between characters.
  progress_.Note(row + (passed ? "" : "  " + ValidUtf8(Utf8Prefix(v.reason, 200))));
  if (out_.json || out_.quiet) return;
  progress_.Clear();
  // One line a unit: on a small machine most speedups are unresolved, and a
  // line under each row doubled the table.
  if (passed && !v.timing.speedup_unresolved.empty())
    row += "  (not resolved: " + v.timing.speedup_unresolved + ")";
  std::cout << row << "\n";
  if (!passed)
    std::cout << "    " << v.reason.substr(0, std::min<size_t>(v.reason.find('\n'), 300)) << "\n";
  std::cout << std::flush;
}

// What the evaluations of a bench leave for its summary.
struct BenchOutcome {
  BenchTally tally;
  double prebuild_seconds = 0;
  std::string sandbox_missing;
  std::vector<BenchLaneStats> lanes;
};

// Each task's candidates from an LLM search (search/optimizer.h) recorded
// under this run; a resumed run replays what the store has (stored replies
// and verdicts) and goes on from there.
Status SearchTasks(Store& db, int64_t run_id, const BenchArgs& a, const BenchPlan& plan,
                   const Backend& backend, Evaluator& evaluator, const EvalOptions& options,
                   CliBenchListener& listener, BenchOutcome& outcome) {
  HONE_ASSIGN_OR_RETURN(SearchSetup setup, MakeSearchSetup(a.search));
  fs::path folders = db.path().parent_path() / fmt::format("bench-{}", run_id);
  BenchTally& tally = outcome.tally;
  tally.total = static_cast<int>(std::count_if(plan.tasks.begin(), plan.tasks.end(),
                                               [](const BenchTask& t) { return t.task; }));
  for (const BenchTask& t : plan.tasks) {
    if (!t.task) continue;
    OptimizeOptions o = SearchOptions(a.search);
    o.eval = options;
    o.sanitize_best = !a.flags.no_sanitize;
    o.store = &db;
    o.run_id = run_id;
    o.options_hash = OptionsHash(a, o.eval);
    o.run_dir = folders / t.task->name;
    Optimizer optimizer(*t.task, backend, *setup.provider, *setup.prompts, evaluator, o);
    auto start = std::chrono::steady_clock::now();
    HONE_ASSIGN_OR_RETURN(OptimizeResult r, optimizer.Run([&](const OptimizeEvent& e) {
      listener.Show(
          tally.Line(fmt::format("{}: {} asked, {} evaluated, {} passed: {}", t.task->name,
                                 e.spend.candidates, e.evaluated, e.passed, e.stage)));
    }));
    ++tally.fresh;
    tally.fresh_seconds += SecondsSince(start);
    tally.Count(
        r.passed > 0 ? "passed" : "failed",
        r.spend.best_speedup > 0 ? std::optional<double>(r.spend.best_speedup) : std::nullopt);
    if (outcome.sandbox_missing.empty()) outcome.sandbox_missing = r.sandbox_missing;
    listener.Keep(fmt::format(
        "{:<34} {} LLM calls ({} reused), {} evaluated ({} reused), {} passed, best {}",
        t.task->name, r.spend.candidates, r.replayed, r.evaluated, r.stored_verdicts, r.passed,
        r.passed > 0 ? fmt::format("{:.2f}x", r.spend.best_speedup) : std::string("-")));
  }
  return Status::Ok();
}

json ResultsJson(const RunData& d) {
  json results = json::array();
  for (const auto& a : d.attempts) {
    json r = {{"task", a.task_name},
              {"category", a.category},
              {"solution", a.candidate.label},
              {"status", a.outcome}};
    if (a.evaluation) {
      const EvaluationRow& e = *a.evaluation;
      r["tries"] = e.tries;
      if (e.speedup) r["speedup"] = *e.speedup;
      if (e.speedup_compile) r["speedup_compile"] = *e.speedup_compile;
      if (e.sol_percent) r["sol_percent"] = *e.sol_percent;
      json v = json::parse(e.verdict, nullptr, false);
      if (!v.is_discarded()) r["verdict"] = v;
    }
    results.push_back(r);
  }
  return results;
}

// The run to record the bench in: the one --resume names (its stored
// configuration replaces the flags), else a new one, once the flags are
// known to be good.
Result<int64_t> OpenBenchRun(Store& db, BenchArgs& a, bool resumed) {
  int64_t run_id = 0;
  if (resumed) {
    auto id = ResolveRun(db, a.resume);
    if (!id.ok()) return id.status().With("--resume: ");
    run_id = *id;
    HONE_ASSIGN_OR_RETURN(RunRow run, db.GetRun(run_id));
    if (run.kind != "bench")
      return Status::Invalid(
          fmt::format("--resume {}: run {} is an {} run; resume it with hone {} --resume", a.resume,
                      run_id, run.kind, run.kind));
    const json stored = json::parse(run.config, nullptr, false);
    BenchArgs as_stored;
    ApplyConfig(stored, as_stored);
    HONE_RETURN_IF_ERROR(CheckFlagsBesideResume(a.given, a.restate(stored), ConfigOf(as_stored)));
    std::string given_suite = a.suite;
    ApplyConfig(stored, a);
    if (!given_suite.empty() && AbsolutePath(given_suite) != a.suite)
      return Status::Invalid(fmt::format("--resume {}: run {} benchmarks {}, not {}", a.resume,
                                         run_id, a.suite, given_suite));
  } else if (a.suite.empty() && a.from_run.empty()) {
    return Status::Invalid("bench: give a SUITE folder, --from-run RUN or --resume RUN");
  } else if (!a.suite.empty() && !a.from_run.empty()) {
    return Status::Invalid("bench: give a SUITE folder or --from-run RUN, not both");
  } else if (!a.search.model.empty() && !a.from_run.empty()) {
    return Status::Invalid("bench: --model searches a SUITE's tasks, not --from-run");
  }
  if (!a.search.model.empty()) HONE_RETURN_IF_ERROR(ValidateSearchFlags(a.search));
  HONE_RETURN_IF_ERROR(CheckBackendName(a.backend, "--backend"));
  HONE_ASSIGN_OR_RETURN(a.lane_devices,
                        LaneDevices(a.backend, a.flags.device, a.devices, a.lanes,
                                    a.devices.empty() ? 0 : DeviceCount(a.backend)));
  if (a.lane_devices.size() > 1 && !a.search.model.empty())
    return Status::Invalid(
        "--devices/--lanes: a bench with --model searches each task on one device");
  HONE_RETURN_IF_ERROR(ToEvalOptions(a.flags).status());
  HONE_RETURN_IF_ERROR(ToSizePolicy(a.flags).status());
  if (!a.suite.empty() && !fs::is_directory(a.suite))
    return Status::Invalid(a.suite + ": not a directory");
  // A suite without tasks, or an --only that matches nothing, is said
  // before a run is begun for it.
  if (!resumed && !a.suite.empty())
    HONE_RETURN_IF_ERROR(
        DiscoverSuiteOf(BuiltInFormats(), a.suite,
                        SuiteLayout{a.backend, SolutionsFor(a.backend, BuiltInLanguages()), a.only,
                                    a.solutions})
            .status());
  if (resumed) {
    HONE_RETURN_IF_ERROR(db.SetRunStatus(run_id, "running"));
    return run_id;
  }
  return db.CreateRun("bench", JsonText(ConfigOf(a)), a.name.empty() ? a.suite : a.name);
}

// The suite's tasks and solutions, or a stored run's candidates.
Result<BenchPlan> PlanBench(EvalContext& ctx, Store& db, int64_t run_id, const BenchArgs& a,
                            const SizePolicy& sizes, BenchListener& listener) {
  BenchTaskLoader load = [&](const fs::path& path) {
    return LoadTask(ctx, path.string(), a.backend, sizes);
  };
  if (a.from_run.empty())
    return PlanSuite(
        BuiltInFormats(), a.suite,
        SuiteLayout{a.backend, SolutionsFor(a.backend, ctx.env.languages), a.only, a.solutions},
        load, db, run_id, listener);
  HONE_ASSIGN_OR_RETURN(int64_t source_run, ResolveRun(db, a.from_run));
  return PlanFromRun(ctx.env.languages, source_run, load, db, run_id, listener);
}

// The lanes after the first (bench/scheduler.h): each its own context on
// its device, with its own oracle where the plan has PyTorch tasks (an
// oracle serves one thread), and its own evaluator. Evaluators go first.
struct ExtraLanes {
  std::vector<std::unique_ptr<EvalContext>> contexts;
  std::vector<std::unique_ptr<Evaluator>> evaluators;
};

Result<std::vector<BenchLane>> OpenLanes(EvalContext& ctx, Evaluator& evaluator, const BenchArgs& a,
                                         const BenchPlan& plan, const SizePolicy& sizes,
                                         ExtraLanes& extra) {
  const size_t n = a.lane_devices.size();
  const std::string& b = a.backend;
  std::vector<BenchLane> lanes = {
      {LaneName(b, a.lane_devices[0], 0, n), &ctx.backend(b), &evaluator, {}}};
  bool oracle = std::any_of(plan.tasks.begin(), plan.tasks.end(), [](const BenchTask& t) {
    return t.task && KindOf(*t.task).site() == ReferenceSite::kOracle;
  });
  for (size_t i = 1; i < n; ++i) {
    auto lane_ctx = MakeEvalContext(ctx.env.languages, b, a.lane_devices[i]);
    if (!lane_ctx.ok()) return lane_ctx.status().With(LaneName(b, a.lane_devices[i], i, n) + ": ");
    EvalContext* c = lane_ctx->get();
    if (oracle) HONE_RETURN_IF_ERROR(StartOracle(*c, b));
    extra.contexts.push_back(std::move(*lane_ctx));
    extra.evaluators.push_back(std::make_unique<Evaluator>(c->env, c->oracle.get()));
    BenchTaskLoader reload = [c, b, sizes](const fs::path& path) {
      return LoadTask(*c, path.string(), b, sizes);
    };
    lanes.push_back({LaneName(b, a.lane_devices[i], i, n), &c->backend(b),
                     extra.evaluators.back().get(), std::move(reload)});
  }
  return lanes;
}

// The first lane's evaluator, made before the plan when the suite's
// candidates include ModelNew files: the oracle and the first warm sandbox
// start at once, and the sandbox imports torch (and Triton) while the
// oracle loads the problems, rather than after (about 2.5 s of the first
// unit's on an H200). Null otherwise; planning then starts the oracle.
struct EarlyEvaluator {
  std::unique_ptr<Evaluator> evaluator;
  const OracleService* oracle = nullptr;  // the one it was made with
};

EarlyEvaluator StartEarly(EvalContext& ctx, const BenchArgs& a, const EvalOptions& options) {
  // A resumed bench may have nothing left to evaluate.
  if (!a.from_run.empty() || !a.resume.empty() || !a.search.model.empty()) return {};
  auto entries = DiscoverSuiteOf(
      BuiltInFormats(), a.suite,
      SuiteLayout{a.backend, SolutionsFor(a.backend, ctx.env.languages), a.only, a.solutions});
  if (!entries.ok()) return {};  // planning says why
  const LanguageRegistry& languages = ctx.env.languages;
  bool modelnew = std::any_of(entries->begin(), entries->end(), [&](const SuiteEntry& e) {
    return std::any_of(e.solutions.begin(), e.solutions.end(),
                       [&](const fs::path& s) { return languages.IsModelNew(s); });
  });
  if (!modelnew || !StartOracle(ctx, a.backend).ok()) return {};
  EarlyEvaluator early{std::make_unique<Evaluator>(ctx.env, ctx.oracle.get()), ctx.oracle.get()};
  early.evaluator->KeepWarm(true);
  early.evaluator->PrewarmCompat(a.backend, options);
  return early;
}

// The units' evaluations over the lanes, or each task's search.
Status EvaluateBench(EvalContext& ctx, Store& db, int64_t run_id, const BenchArgs& a,
                     BenchPlan& plan, const EvalOptions& options, const SizePolicy& sizes,
                     CliBenchListener& listener, EarlyEvaluator early, BenchOutcome& outcome) {
  const Backend& backend = ctx.backend(a.backend);
  // Planning loaded the tasks: a PyTorch suite's oracle is the context's now
  // (the early evaluator's, unless planning had to start another).
  std::unique_ptr<Evaluator> owned = early.evaluator && early.oracle == ctx.oracle.get()
                                         ? std::move(early.evaluator)
                                         : std::make_unique<Evaluator>(ctx.env, ctx.oracle.get());
  Evaluator& evaluator = *owned;
  if (!a.search.model.empty())
    return SearchTasks(db, run_id, a, plan, backend, evaluator, options, listener, outcome);
  ExtraLanes extra;
  HONE_ASSIGN_OR_RETURN(std::vector<BenchLane> lanes,
                        OpenLanes(ctx, evaluator, a, plan, sizes, extra));
  BenchRunInfo info{&db, run_id, !a.resume.empty(), OptionsHash(a, options), !a.flags.no_sanitize};
  BenchScheduler scheduler(info, std::move(lanes), options, listener, outcome.tally);
  Status st = scheduler.Run(plan);
  outcome.prebuild_seconds = scheduler.prebuild_seconds();
  outcome.sandbox_missing = scheduler.sandbox_missing();
  outcome.lanes = scheduler.lane_stats();
  return st;
}

// Where each lane ran and what it did; only for a bench of several lanes.
json LanesJson(const std::vector<BenchLaneStats>& lanes) {
  json out = json::array();
  for (const BenchLaneStats& l : lanes) {
    json one = {
        {"name", l.name}, {"machine", MachineToJson(l.machine)}, {"evaluated", l.evaluated}};
    if (!l.failure.empty()) one["failure"] = l.failure;
    out.push_back(one);
  }
  return out;
}

// The run's summary into the store, and the table (or JSON) on stdout.
int Finish(Store& db, int64_t run_id, const BenchArgs& a, const BenchPlan& plan,
           const Backend& backend, const BenchOutcome& o, double wall, Progress& progress) {
  auto data = LoadRunData(db, run_id);
  if (!data.ok()) return ReportError(data.status());
  const BenchTally& tally = o.tally;
  json summary = {{"metrics", SuiteMetricsToJson(data->metrics)},
                  {"units", tally.total},
                  {"evaluated_now", tally.fresh},
                  {"malformed_tasks", plan.malformed},
                  {"tasks_listed", data->metrics.all.tasks + plan.malformed},
                  {"skipped_tasks", plan.skipped},
                  {"wall_seconds", wall},
                  {"prebuild_seconds", o.prebuild_seconds},
                  {"evaluations_per_hour", wall > 0 ? tally.fresh * 3600 / wall : 0},
                  {"stage_seconds", tally.stage_seconds},
                  {"kernel_seconds", tally.kernel_seconds},
                  {"harness_share", wall > 0 ? std::max(0.0, 1 - tally.kernel_seconds / wall) : 0},
                  {"machine", MachineToJson(backend.machine())}};
  if (o.lanes.size() > 1) summary["lanes"] = LanesJson(o.lanes);
  if (Status st = db.SetRunStatus(run_id, "finished", JsonText(summary)); !st.ok())
    return ReportError(st);
  std::string table = SuiteMetricsTable(data->metrics, BaselineWord(*data));
  progress.Note("finished\n" + table);
  if (a.out.json) {
    std::cout << JsonText(json({{"run_id", run_id},
                                {"store", db.path().string()},
                                {"suite", a.suite},
                                {"from_run", a.from_run},
                                {"backend", a.backend},
                                {"resumed", !a.resume.empty()},
                                {"results", ResultsJson(*data)},
                                {"summary", summary}}),
                          2)
              << "\n";
  } else {
    std::cout << "\n" << table;
    // The figures are over the tasks that loaded: a malformed one (named
    // above) would otherwise vanish from "tasks solved".
    if (std::string note = MalformedTasksNote(plan.malformed, data->metrics.all); !note.empty())
      std::cout << note << "\n";
    if (!a.out.quiet)
      std::cout << fmt::format(
          "run {}: {} units, {} evaluated now, wall {:.1f} s ({:.0f} evaluations/hour, parallel "
          "prebuild {:.1f} s, inside hone_forward {:.1f} s); hone report {} --store {}\n",
          run_id, tally.total, tally.fresh, wall, wall > 0 ? tally.fresh * 3600 / wall : 0,
          o.prebuild_seconds, tally.kernel_seconds, run_id, db.path().string());
  }
  return plan.malformed ? kExitUsage : kExitOk;
}

int RunBench(BenchArgs a) {
  if (a.backend.empty()) a.backend = a.devices.empty() ? kHostBackend : NumberedBackend();
  // Before the store: a folder that is not there makes no store either.
  if (a.resume.empty() && !a.suite.empty() && !fs::is_directory(a.suite))
    return ReportError(Status::Invalid(a.suite + ": not a directory"));
  auto store = OpenStore(a.store);
  if (!store.ok()) return ReportError(store.status());
  Store& db = **store;
  const bool resumed = !a.resume.empty();
  auto run_id = OpenBenchRun(db, a, resumed);
  if (!run_id.ok()) return ReportError(run_id.status());
  auto options = ToEvalOptions(a.flags);
  auto sizes = ToSizePolicy(a.flags);
  options->backend = a.backend;
  SayOnInterrupt(
      fmt::format("hone: interrupted; what was evaluated is kept; continue with: hone "
                  "bench --resume {} --store {}",
                  *run_id, db.path().string()));
  if (!a.out.quiet && !a.out.json)
    std::fprintf(stderr, "hone: %s bench run %lld in %s\n", resumed ? "resuming" : "started",
                 static_cast<long long>(*run_id), db.path().c_str());
  auto ctx = MakeEvalContext(BuiltInLanguages(), a.backend, a.lane_devices[0]);
  if (!ctx.ok()) return ReportError(ctx.status());
  Progress progress(a.out);
  CliBenchListener listener(progress, a.out);
  progress.Note(fmt::format("bench run {} ({})", *run_id, resumed ? "resumed" : "started"));
  auto wall_start = std::chrono::steady_clock::now();
  EarlyEvaluator early = StartEarly(**ctx, a, *options);
  auto plan = PlanBench(**ctx, db, *run_id, a, *sizes, listener);
  if (plan.ok()) listener.FitUnits(plan->units);
  BenchOutcome outcome;
  Status done = plan.ok() ? EvaluateBench(**ctx, db, *run_id, a, *plan, *options, *sizes, listener,
                                          std::move(early), outcome)
                          : plan.status();
  progress.Clear();
  if (!done.ok()) {
    (void)db.SetRunStatus(*run_id, "failed");
    return ReportError(done);
  }
  if (!outcome.sandbox_missing.empty() && !a.out.quiet)
    std::fprintf(stderr, "hone: warning: not in force in the sandbox on this machine: %s\n",
                 outcome.sandbox_missing.c_str());
  return Finish(db, *run_id, a, *plan, (*ctx)->backend(a.backend), outcome,
                SecondsSince(wall_start), progress);
}

}  // namespace

Command RegisterBench(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Score every solution of every task in a suite (or a run's candidates), resumably");
  sub->add_option("suite", args->suite,
                  "A folder of tasks (task folders, PyTorch problem files, or level folders of "
                  "them), or one task folder");
  sub->add_option("--backend", args->backend,
                  "cpu (.cpp solutions) or cuda (.cu solutions); default cpu, or cuda with "
                  "--devices");
  sub->add_option("--devices", args->devices,
                  "CUDA: evaluate on these GPUs at once, one evaluation at a time each: all, or "
                  "indices and ranges (0,2 or 0-3); takes the place of --device");
  sub->add_option("--lanes", args->lanes,
                  "CPU: this many evaluations at once (their timings interfere; see docs/BENCH.md)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--only", args->only,
                  "Solution names to evaluate, comma-separated or repeated (e.g. --only fast)")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub->add_option("--solutions", args->solutions,
                  "PyTorch suites: the folder of solutions, one subfolder per problem "
                  "(default SUITE/candidates)");
  sub->add_option("--from-run", args->from_run,
                  "Score the candidates of this stored run (an id, or 'last') instead of a suite");
  sub->add_option("--resume", args->resume,
                  "Continue this bench run (an id, or 'last'): what it finished is kept");
  sub->add_option("--name", args->name, "A label for the run (default: the suite's path)");
  AddStoreFlag(sub, args->store);
  AddSearchFlags(sub, args->search, "each task");
  AddEvalFlags(sub, args->flags);
  AddNoSanitizeFlag(sub, args->flags);
  AddMetricsFlag(sub, args->flags);
  AddOutputFlags(sub, args->out);
  return [args, sub] {
    args->given = GivenFlags(
        *sub, {"suite", "--store", "--json", "--quiet", "--log", "--lanes", "--devices"});
    // Called once, by --resume: the stored options go into the variables the
    // flags are bound to, and the given flags are set again over them.
    BenchArgs* bound = args.get();
    args->restate = [bound, sub](const json& stored) {
      ApplyConfig(stored, *bound);
      RestateGivenFlags(*sub, bound->given);
      return ConfigOf(*bound);
    };
    return RunBench(*args);
  };
}

}  // namespace hone::cli
