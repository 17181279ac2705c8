// hone bench SUITE: scores a set of candidates per task (a suite's solution
// files, or the candidates of a stored run) and reports KernelBench's
// metrics. Every unit of work goes through the run store, so a bench killed
// at any point (kill -9 included) continues with `hone bench --resume RUN`:
// finished units are never evaluated again, a unit cut off mid-evaluation is
// evaluated once more. docs/BENCH.md is the user's page.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "build/build_pool.h"
#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/search_flags.h"
#include "cli/store_flags.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/hash.h"
#include "report/run_data.h"
#include "report/verdict_text.h"
#include "task/suite.h"
#include "task/task_loader.h"
#include "verify/verdict_json.h"

namespace hone::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct BenchArgs {
  std::string suite;
  std::string backend = "cpu";
  std::vector<std::string> only;  // solution file stems to keep
  std::string solutions;          // PyTorch suites: where the solutions are
  std::string from_run;           // score the candidates of this stored run
  std::string resume;             // continue this bench run
  std::string name;
  std::string store;
  SearchFlags search;  // with --model: each task's candidates come from an LLM search
  EvalFlags flags;
  Output out;
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
  a.backend = c.value("backend", "cpu");
  a.only = c.value("only", std::vector<std::string>{});
  a.solutions = c.value("solutions", "");
  a.from_run = c.value("from_run", "");
  a.flags = EvalFlagsFromJson(c.value("flags", json::object()));
  if (c.contains("search") && c["search"].is_object()) SearchFlagsFromJson(c["search"], a.search);
}

// One task of the bench, loaded.
struct BenchTask {
  fs::path path;
  std::string category;
  std::optional<Task> task;  // absent: skipped or malformed (said on stderr)
};

// One unit of work: a candidate on a task.
struct Unit {
  size_t task = 0;  // index into the tasks
  fs::path candidate;
  std::string label;
  int64_t candidate_id = 0;
  std::string work_key;
};

struct Plan {
  std::vector<BenchTask> tasks;
  std::vector<Unit> units;
  int malformed = 0, skipped = 0;
};

std::string OptionsHash(const BenchArgs& a) {
  json flags = EvalFlagsToJson(a.flags);
  flags.erase("device");  // where it runs is not what is measured
  return ContentHash({"bench-options-v1", a.backend, flags.dump()});
}

// Loads a task, saying why on stderr when it cannot be.
std::optional<Task> LoadForBench(EvalContext& ctx, const fs::path& path, const BenchArgs& a,
                                 const SizePolicy& sizes, Progress& progress, Plan& plan) {
  progress.Show("loading " + path.string());
  auto task = LoadTask(ctx, path.string(), a.backend, sizes);
  if (task.ok()) return std::move(*task);
  progress.Clear();
  bool skipped = task.status().code() == StatusCode::kUnavailable;
  ++(skipped ? plan.skipped : plan.malformed);
  std::fprintf(stderr, "hone: %s\n", task.status().message().c_str());
  progress.Note(task.status().message());
  return std::nullopt;
}

Status RecordTask(Store& store, int64_t run_id, const BenchTask& t, int position) {
  TaskRow row;
  row.hash = t.task->hash;
  row.name = t.task->name;
  row.path = AbsolutePath(t.path);
  HONE_RETURN_IF_ERROR(store.PutTask(row));
  return store.AddRunTask(run_id, row.hash, t.category, position);
}

// Stores the unit's candidate (idempotent on its place in the plan) and
// gives it its work key: the task, the source and the unit's label, so that
// two solution files with the same code are two units. `stored` is what the
// run had before (a resumed run): a unit that differs from it means the
// suite changed since the run started, which --resume refuses.
Status RecordUnit(Store& store, int64_t run_id, const BenchArgs& a, const Task& task, Unit& u,
                  int seq, const std::map<int, CandidateRow>& stored) {
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(u.candidate));
  if (auto it = stored.find(seq); it != stored.end()) {
    const CandidateRow& was = it->second;
    if (was.label != u.label || was.source_hash != SourceHash(source))
      return Status::Invalid(fmt::format(
          "the suite changed since run {} started: unit {} was {}, is now {} ({}); start a new "
          "run",
          run_id, seq, was.label, u.label,
          was.label == u.label ? "its source differs" : "files were added or removed"));
  }
  CandidateRow c;
  c.run_id = run_id;
  c.task_hash = task.hash;
  c.seq = seq;
  c.kind = "solution";
  c.label = u.label;
  c.backend = a.backend;
  c.source = source;
  HONE_ASSIGN_OR_RETURN(u.candidate_id, store.AddCandidate(c));
  u.work_key = WorkKey(task.hash, SourceHash(source) + "#" + u.label, OptionsHash(a));
  return Status::Ok();
}

// The suite's tasks and solution files.
Result<Plan> PlanSuite(EvalContext& ctx, Store& store, int64_t run_id, const BenchArgs& a,
                       const SizePolicy& sizes, Progress& progress) {
  SuiteLayout layout{a.backend, a.only, a.solutions};
  HONE_ASSIGN_OR_RETURN(auto entries, DiscoverSuite(a.suite, layout));
  Plan plan;
  for (const auto& e : entries) {
    BenchTask t{e.task, e.category, LoadForBench(ctx, e.task, a, sizes, progress, plan)};
    // A native task names its own category; a PyTorch problem's is its level.
    if (t.task && !t.task->pytorch && !t.task->category.empty()) t.category = t.task->category;
    if (t.task) HONE_RETURN_IF_ERROR(RecordTask(store, run_id, t, plan.tasks.size()));
    plan.tasks.push_back(std::move(t));
    if (!plan.tasks.back().task) continue;
    for (const auto& sol : e.solutions) {
      Unit u;
      u.task = plan.tasks.size() - 1;
      u.candidate = sol;
      u.label = plan.tasks.back().task->name + "/" + sol.filename().string();
      plan.units.push_back(std::move(u));
    }
  }
  return plan;
}

// The candidates of a stored run, written out as files to evaluate.
Result<Plan> PlanFromRun(EvalContext& ctx, Store& store, int64_t run_id, const BenchArgs& a,
                         const SizePolicy& sizes, Progress& progress) {
  HONE_ASSIGN_OR_RETURN(int64_t source_run, ResolveRun(store, a.from_run));
  HONE_ASSIGN_OR_RETURN(auto source_tasks, store.RunTasks(source_run));
  HONE_ASSIGN_OR_RETURN(auto attempts, store.Attempts(source_run));
  std::map<std::string, std::string> category;
  for (const auto& t : source_tasks) category[t.task_hash] = t.category;
  fs::path sources = store.path().parent_path() / "sources";
  Plan plan;
  std::map<std::string, size_t> task_index;  // stored hash -> plan.tasks
  for (const auto& c : attempts) {
    if (!c.source) continue;
    if (!task_index.count(c.task_hash)) {
      HONE_ASSIGN_OR_RETURN(auto row, store.GetTask(c.task_hash));
      if (!row || row->path.empty()) {
        ++plan.malformed;
        std::fprintf(stderr, "hone: run %lld: task %s has no path in the store; skipped\n",
                     static_cast<long long>(source_run), c.task_hash.c_str());
        task_index[c.task_hash] = SIZE_MAX;
        continue;
      }
      std::string cat = category.count(c.task_hash) ? category[c.task_hash] : "";
      BenchTask t{row->path, cat, LoadForBench(ctx, row->path, a, sizes, progress, plan)};
      if (t.task && t.task->hash != c.task_hash)
        std::fprintf(stderr,
                     "hone: warning: %s changed since run %lld; scoring against it as it "
                     "is now\n",
                     row->path.c_str(), static_cast<long long>(source_run));
      if (t.task) HONE_RETURN_IF_ERROR(RecordTask(store, run_id, t, plan.tasks.size()));
      task_index[c.task_hash] = t.task ? plan.tasks.size() : SIZE_MAX;
      plan.tasks.push_back(std::move(t));
    }
    size_t ti = task_index[c.task_hash];
    if (ti == SIZE_MAX) continue;
    std::string ext = c.backend == "cuda" ? ".cu" : ".cpp";
    fs::path file = sources / (SourceHash(*c.source) + ext);
    if (!fs::exists(file)) HONE_RETURN_IF_ERROR(WriteFileAtomic(file, *c.source));
    Unit u;
    u.task = ti;
    u.candidate = file;
    u.label = fmt::format("{}/run{}#{}", plan.tasks[ti].task->name, source_run, c.seq);
    plan.units.push_back(std::move(u));
  }
  return plan;
}

// Compiles the native sources, and the torch extensions of the compat (.py)
// candidates, still to evaluate on all cores first, so the evaluations that
// follow find their builds in the cache.
void Prebuild(const Plan& plan, const std::vector<const Unit*>& todo, const Backend& backend,
              Evaluator& evaluator, Progress& progress) {
  std::vector<fs::path> compat;
  for (const Unit* u : todo)
    if (u->candidate.extension() == ".py") compat.push_back(u->candidate);
  evaluator.PrebuildCompat(compat, [&](int done, int total) {
    progress.Show(fmt::format("building torch extensions {}/{}", done, total));
  });
  BuildPool pool(backend.builder());
  std::vector<std::future<Result<BuildResult>>> builds;
  std::vector<bool> reference_queued(plan.tasks.size(), false);
  for (const Unit* u : todo) {
    const BenchTask& t = plan.tasks[u->task];
    if (!t.task->pytorch && !reference_queued[u->task]) {
      reference_queued[u->task] = true;
      if (auto ref = t.task->ReferenceFor(backend.traits().tasks_as); ref.ok())
        builds.push_back(pool.Submit(*ref));
    }
    if (u->candidate.extension() != ".py") builds.push_back(pool.Submit(u->candidate));
  }
  for (size_t i = 0; i < builds.size(); ++i) {
    progress.Show(
        fmt::format("building {}/{} on {} threads", i + 1, builds.size(), pool.threads()));
    builds[i].wait();
  }
}

std::string FormatEta(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s", seconds);
  if (seconds < 5400) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// Live counters for the progress line.
struct Tally {
  int done = 0, passed = 0, total = 0, fresh = 0;
  double best = 0;
  double fresh_seconds = 0;
  // Where the evaluated-now units' time went: stages summed over
  // evaluations, and the part spent inside hone_forward (both sides).
  std::map<std::string, double> stage_seconds;
  double kernel_seconds = 0;
  // compute-sanitizer on each task's new best CUDA candidate (--no-sanitize).
  bool sanitize_best = true;
  std::map<std::string, double> best_by_task;
  std::string Line(const std::string& what) const {
    std::string eta = fresh > 0 ? ", ETA " + FormatEta(fresh_seconds / fresh * (total - done)) : "";
    std::string fastest = best > 0 ? fmt::format("{:.2f}x", best) : "-";
    return fmt::format("[{}/{} done, {} passed, best {}{}] {}", done, total, passed, fastest, eta,
                       what);
  }
  void Count(const std::string& status, std::optional<double> speedup) {
    ++done;
    if (status != "passed") return;
    ++passed;
    if (speedup) best = std::max(best, *speedup);
  }
};

// One unit's row of the table; RowHeader names its columns.
std::string RowCells(const std::string& label, const std::string& status, const std::string& cand,
                     const std::string& ref, const std::string& speedup, const std::string& sol) {
  return fmt::format("{:<34} {:<14} {:>11} {:>11} {:>8} {:>6}", label.substr(0, 34), status, cand,
                     ref, speedup, sol);
}

std::string RowHeader() {
  return RowCells("unit", "status", "candidate", "reference", "speedup", "SOL%");
}

std::string Row(const std::string& label, const std::string& status,
                const std::optional<double>& cand_us, const std::optional<double>& ref_us,
                const std::optional<double>& speedup, const std::optional<double>& sol) {
  auto us = [](const std::optional<double>& x) {
    return x ? FormatSeconds(*x * 1e-6) : std::string("-");
  };
  return RowCells(label, status, us(cand_us), us(ref_us),
                  speedup ? fmt::format("{:.2f}x", *speedup) : "-",
                  sol && *sol > 0 ? fmt::format("{:.1f}", *sol) : "-");
}

// Evaluates one unit unless the store already has its result.
Status RunUnit(Store& store, int64_t run_id, Evaluator& evaluator, const EvalOptions& options,
               const Task& task, const Unit& u, Tally& tally, Progress& progress, const Output& out,
               std::string& sandbox_missing) {
  bool finished = false;
  HONE_ASSIGN_OR_RETURN(int64_t eval_id, store.BeginEvaluation(run_id, u.work_key, task.hash,
                                                               u.candidate_id, &finished));
  if (finished) return Status::Ok();  // done before a crash; counted by the caller
  auto start = std::chrono::steady_clock::now();
  HONE_ASSIGN_OR_RETURN(
      Verdict v, evaluator.Evaluate(task, u.candidate, options, [&](const std::string& stage) {
        progress.Show(tally.Line(u.label + ": " + stage));
      }));
  if (tally.sanitize_best && v.status == VerdictStatus::kPassed && v.backend == "cuda" &&
      u.candidate.extension() != ".py") {
    auto [best, first] = tally.best_by_task.try_emplace(task.name, v.speedup);
    if (first || v.speedup > best->second) {
      progress.Show(tally.Line(u.label + ": sanitize (a new best)"));
      HONE_RETURN_IF_ERROR(evaluator.SanitizeInto(task, u.candidate, options, v));
      if (v.status == VerdictStatus::kPassed)
        best->second = v.speedup;
      else if (first)
        tally.best_by_task.erase(best);
    }
  }
  HONE_RETURN_IF_ERROR(store.FinishEvaluation(eval_id, v));
  ++tally.fresh;
  tally.fresh_seconds += SecondsSince(start);
  for (const auto& [stage, seconds] : v.stage_seconds) tally.stage_seconds[stage] += seconds;
  tally.kernel_seconds += v.kernel_seconds;
  std::optional<double> speedup;
  if (v.speedup > 0) speedup = v.speedup;
  std::string status(StatusName(v.status));
  tally.Count(status, speedup);
  if (sandbox_missing.empty()) sandbox_missing = v.sandbox_missing;
  auto us = [](const std::optional<TimingResult>& t) {
    return t ? std::optional<double>(t->summary.median * 1e6) : std::nullopt;
  };
  std::optional<double> sol;
  if (v.sol_percent > 0) sol = v.sol_percent;
  std::string row = Row(u.label, status, us(v.candidate_time), us(v.reference_time), speedup, sol);
  progress.Note(row + (v.status == VerdictStatus::kPassed ? "" : "  " + v.reason.substr(0, 200)));
  if (!out.json && !out.quiet) {
    progress.Clear();
    std::cout << row << "\n";
    if (v.status != VerdictStatus::kPassed) std::cout << "    " << v.reason.substr(0, 300) << "\n";
    if (v.status == VerdictStatus::kPassed && !v.speedup_unresolved.empty())
      std::cout << "    speedup not resolved: " << v.speedup_unresolved << "\n";
    std::cout << std::flush;
  }
  return Status::Ok();
}

// Evaluates the plan's units the store has no result for.
Status EvaluateUnits(Store& db, int64_t run_id, const BenchArgs& a, Plan& plan, EvalContext& ctx,
                     Evaluator& evaluator, const EvalOptions& options, bool resumed,
                     Progress& progress, Tally& tally, double& prebuild_seconds,
                     std::string& sandbox_missing) {
  tally.total = static_cast<int>(plan.units.size());
  std::vector<const Unit*> todo;
  std::map<std::string, EvaluationRow> stored;  // finished before this invocation
  std::map<int, CandidateRow> units_before;
  if (resumed) {
    HONE_ASSIGN_OR_RETURN(RunData before, LoadRunData(db, run_id));
    for (const auto& at : before.attempts) {
      units_before[at.candidate.seq] = at.candidate;
      if (at.evaluation && at.evaluation->state == "finished")
        stored[at.evaluation->work_key] = *at.evaluation;
    }
  }
  for (size_t i = 0; i < plan.units.size(); ++i) {
    Unit& u = plan.units[i];
    const Task& task = *plan.tasks[u.task].task;
    if (Status st = RecordUnit(db, run_id, a, task, u, static_cast<int>(i), units_before); !st.ok())
      return st;
    if (auto it = stored.find(u.work_key); it != stored.end())
      tally.Count(it->second.status, it->second.speedup);
    else
      todo.push_back(&u);
  }
  if (resumed && !a.out.quiet && !a.out.json)
    std::fprintf(stderr, "hone: %d of %d already evaluated; %zu to go\n", tally.done, tally.total,
                 todo.size());
  // ModelNew candidates' sandboxes start Python and torch ahead of need,
  // the first while the extensions build.
  if (std::any_of(todo.begin(), todo.end(),
                  [](const Unit* u) { return u->candidate.extension() == ".py"; })) {
    evaluator.KeepWarm(true);
    evaluator.PrewarmCompat(a.backend, options);
  }
  auto prebuild_start = std::chrono::steady_clock::now();
  Prebuild(plan, todo, ctx.backend(a.backend), evaluator, progress);
  prebuild_seconds = SecondsSince(prebuild_start);
  if (!todo.empty()) {
    progress.Note(RowHeader());
    if (!a.out.json && !a.out.quiet) {
      progress.Clear();
      std::cout << RowHeader() << "\n" << std::flush;
    }
  }
  std::set<size_t> broken;  // tasks whose evaluation failed as a whole
  for (const Unit* u : todo) {
    if (broken.count(u->task)) continue;
    const Task& task = *plan.tasks[u->task].task;
    Status st =
        RunUnit(db, run_id, evaluator, options, task, *u, tally, progress, a.out, sandbox_missing);
    if (st.ok()) continue;
    if (st.code() != StatusCode::kInvalidInput && st.code() != StatusCode::kUnavailable)
      return st.With(u->label + ": ");
    // The task is at fault (its reference fails) or cannot run here (it does
    // not fit in memory): say so, skip its other units (left pending: a
    // resume tries them again) and go on.
    progress.Clear();
    std::fprintf(stderr, "hone: %s: %s\n", u->label.c_str(), st.message().c_str());
    progress.Note(u->label + ": " + st.message());
    broken.insert(u->task);
    ++plan.malformed;
  }
  return Status::Ok();
}

// Each task's candidates from an LLM search (search/optimizer.h) recorded
// under this run; a resumed run replays what the store has (stored replies
// and verdicts) and goes on from there.
Status SearchTasks(Store& db, int64_t run_id, const BenchArgs& a, const Plan& plan,
                   EvalContext& ctx, Evaluator& evaluator, const EvalOptions& options,
                   Progress& progress, Tally& tally, std::string& sandbox_missing) {
  HONE_ASSIGN_OR_RETURN(SearchSetup setup, MakeSearchSetup(a.search));
  fs::path folders = db.path().parent_path() / fmt::format("bench-{}", run_id);
  tally.total = static_cast<int>(std::count_if(plan.tasks.begin(), plan.tasks.end(),
                                               [](const BenchTask& t) { return t.task; }));
  for (const BenchTask& t : plan.tasks) {
    if (!t.task) continue;
    OptimizeOptions o = SearchOptions(a.search);
    o.eval = options;
    o.sanitize_best = !a.flags.no_sanitize;
    o.store = &db;
    o.run_id = run_id;
    o.options_hash = OptionsHash(a);
    o.run_dir = folders / t.task->name;
    Optimizer optimizer(*t.task, ctx.backend(a.backend), *setup.provider, *setup.prompts, evaluator,
                        o);
    auto start = std::chrono::steady_clock::now();
    HONE_ASSIGN_OR_RETURN(OptimizeResult r, optimizer.Run([&](const OptimizeEvent& e) {
      progress.Show(
          tally.Line(fmt::format("{}: {} asked, {} evaluated, {} passed: {}", t.task->name,
                                 e.spend.candidates, e.evaluated, e.passed, e.stage)));
    }));
    ++tally.fresh;
    tally.fresh_seconds += SecondsSince(start);
    tally.Count(
        r.passed > 0 ? "passed" : "failed",
        r.spend.best_speedup > 0 ? std::optional<double>(r.spend.best_speedup) : std::nullopt);
    if (sandbox_missing.empty()) sandbox_missing = r.sandbox_missing;
    std::string row = fmt::format(
        "{:<34} {} LLM calls ({} reused), {} evaluated ({} reused), {} passed, best {}",
        t.task->name, r.spend.candidates, r.replayed, r.evaluated, r.stored_verdicts, r.passed,
        r.passed > 0 ? fmt::format("{:.2f}x", r.spend.best_speedup) : std::string("-"));
    progress.Note(row);
    if (!a.out.json && !a.out.quiet) {
      progress.Clear();
      std::cout << row << "\n" << std::flush;
    }
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

int RunBench(BenchArgs a) {
  auto store = OpenStore(a.store);
  if (!store.ok()) return ReportError(store.status());
  Store& db = **store;
  int64_t run_id = 0;
  bool resumed = !a.resume.empty();
  if (resumed) {
    auto id = ResolveRun(db, a.resume);
    if (!id.ok()) return ReportError(id.status().With("--resume: "));
    auto run = db.GetRun(*id);
    if (!run.ok()) return ReportError(run.status());
    if (run->kind != "bench")
      return ReportError(Status::Invalid(
          fmt::format("--resume {}: run {} is an {} run; resume it with hone {} --resume", a.resume,
                      *id, run->kind, run->kind)));
    std::string given_suite = a.suite;
    ApplyConfig(json::parse(run->config, nullptr, false), a);
    if (!given_suite.empty() && AbsolutePath(given_suite) != a.suite)
      return ReportError(Status::Invalid(fmt::format("--resume {}: run {} benchmarks {}, not {}",
                                                     a.resume, *id, a.suite, given_suite)));
    run_id = *id;
  } else if (a.suite.empty() && a.from_run.empty()) {
    return ReportError(
        Status::Invalid("bench: give a SUITE folder, --from-run RUN or --resume RUN"));
  } else if (!a.suite.empty() && !a.from_run.empty()) {
    return ReportError(Status::Invalid("bench: give a SUITE folder or --from-run RUN, not both"));
  } else if (!a.search.model.empty() && !a.from_run.empty()) {
    return ReportError(Status::Invalid("bench: --model searches a SUITE's tasks, not --from-run"));
  }
  if (!a.search.model.empty()) {
    if (Status st = ValidateSearchFlags(a.search); !st.ok()) return ReportError(st);
  }
  if (a.backend != "cpu" && a.backend != "cuda")
    return ReportError(Status::Invalid("--backend: expected cpu or cuda, got '" + a.backend + "'"));
  auto options = ToEvalOptions(a.flags);
  if (!options.ok()) return ReportError(options.status());
  options->backend = a.backend;
  auto sizes = ToSizePolicy(a.flags);
  if (!sizes.ok()) return ReportError(sizes.status());
  if (!a.suite.empty() && !fs::is_directory(a.suite))
    return ReportError(Status::Invalid(a.suite + ": not a directory"));
  // A suite without tasks, or an --only that matches nothing, is said
  // before a run is begun for it.
  if (!resumed && !a.suite.empty())
    if (auto e = DiscoverSuite(a.suite, SuiteLayout{a.backend, a.only, a.solutions}); !e.ok())
      return ReportError(e.status());
  if (!resumed) {
    auto id = db.CreateRun("bench", ConfigOf(a).dump(), a.name.empty() ? a.suite : a.name);
    if (!id.ok()) return ReportError(id.status());
    run_id = *id;
  } else if (Status st = db.SetRunStatus(run_id, "running"); !st.ok()) {
    return ReportError(st);
  }
  if (!a.out.quiet && !a.out.json)
    std::fprintf(stderr, "hone: %s bench run %lld in %s\n", resumed ? "resuming" : "started",
                 static_cast<long long>(run_id), db.path().c_str());

  auto ctx = MakeEvalContext(a.backend, a.flags.device);
  if (!ctx.ok()) return ReportError(ctx.status());
  Progress progress(a.out);
  progress.Note(fmt::format("bench run {} ({})", run_id, resumed ? "resumed" : "started"));
  auto wall_start = std::chrono::steady_clock::now();
  auto plan = a.from_run.empty() ? PlanSuite(**ctx, db, run_id, a, *sizes, progress)
                                 : PlanFromRun(**ctx, db, run_id, a, *sizes, progress);
  if (!plan.ok()) {
    (void)db.SetRunStatus(run_id, "failed");
    return ReportError(plan.status());
  }
  Evaluator evaluator((*ctx)->env);  // after loading: PyTorch tasks started the oracle
  Tally tally;
  tally.sanitize_best = !a.flags.no_sanitize;
  double prebuild_seconds = 0;
  std::string sandbox_missing;
  Status done = a.search.model.empty()
                    ? EvaluateUnits(db, run_id, a, *plan, **ctx, evaluator, *options, resumed,
                                    progress, tally, prebuild_seconds, sandbox_missing)
                    : SearchTasks(db, run_id, a, *plan, **ctx, evaluator, *options, progress, tally,
                                  sandbox_missing);
  if (!done.ok()) {
    progress.Clear();
    (void)db.SetRunStatus(run_id, "failed");
    return ReportError(done);
  }
  progress.Clear();
  if (!sandbox_missing.empty() && !a.out.quiet)
    std::fprintf(stderr, "hone: warning: not in force in the sandbox on this machine: %s\n",
                 sandbox_missing.c_str());

  auto data = LoadRunData(db, run_id);
  if (!data.ok()) return ReportError(data.status());
  double wall = SecondsSince(wall_start);
  json summary = {{"metrics", SuiteMetricsToJson(data->metrics)},
                  {"units", tally.total},
                  {"evaluated_now", tally.fresh},
                  {"malformed_tasks", plan->malformed},
                  {"skipped_tasks", plan->skipped},
                  {"wall_seconds", wall},
                  {"prebuild_seconds", prebuild_seconds},
                  {"evaluations_per_hour", wall > 0 ? tally.fresh * 3600 / wall : 0},
                  {"stage_seconds", tally.stage_seconds},
                  {"kernel_seconds", tally.kernel_seconds},
                  {"harness_share", wall > 0 ? std::max(0.0, 1 - tally.kernel_seconds / wall) : 0},
                  {"machine", MachineToJson((*ctx)->backend(a.backend).machine())}};
  if (Status st = db.SetRunStatus(run_id, "finished", summary.dump()); !st.ok())
    return ReportError(st);
  std::string table = SuiteMetricsTable(data->metrics);
  progress.Note("finished\n" + table);
  if (a.out.json) {
    std::cout << json({{"run_id", run_id},
                       {"store", db.path().string()},
                       {"suite", a.suite},
                       {"from_run", a.from_run},
                       {"backend", a.backend},
                       {"resumed", resumed},
                       {"results", ResultsJson(*data)},
                       {"summary", summary}})
                     .dump(2)
              << "\n";
  } else {
    std::cout << "\n" << table;
    if (!a.out.quiet)
      std::cout << fmt::format(
          "run {}: {} units, {} evaluated now, wall {:.1f} s ({:.0f} evaluations/hour, parallel "
          "prebuild {:.1f} s, inside hone_forward {:.1f} s); hone report {} --store {}\n",
          run_id, tally.total, tally.fresh, wall, wall > 0 ? tally.fresh * 3600 / wall : 0,
          prebuild_seconds, tally.kernel_seconds, run_id, db.path().string());
  }
  return plan->malformed ? kExitUsage : kExitOk;
}

}  // namespace

Command RegisterBench(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Score every solution of every task in a suite (or a run's candidates), resumably");
  sub->add_option("suite", args->suite,
                  "A folder of tasks (task folders, PyTorch problem files, or level folders of "
                  "them), or one task folder");
  sub->add_option("--backend", args->backend, "cpu (.cpp solutions) or cuda (.cu solutions)")
      ->capture_default_str();
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
  AddOutputFlags(sub, args->out);
  return [args] { return RunBench(*args); };
}

}  // namespace hone::cli
