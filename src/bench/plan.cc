#include "bench/plan.h"

#include <fmt/format.h>

#include <map>

#include "bench/listener.h"
#include "core/fs.h"
#include "task/reference_kind.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// Loads a task, saying why to the listener when it cannot be.
std::optional<Task> LoadForBench(const fs::path& path, const BenchTaskLoader& load,
                                 BenchListener& listener, BenchPlan& plan) {
  listener.Show("loading " + path.string());
  auto task = load(path);
  if (task.ok()) return std::move(*task);
  bool skipped = task.status().code() == StatusCode::kUnavailable;
  ++(skipped ? plan.skipped : plan.malformed);
  listener.TaskProblem(task.status().message());
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

// Appends `t` to the plan, recorded in the store when it loaded; its index.
Result<size_t> AddTask(BenchTask t, Store& store, int64_t run_id, BenchPlan& plan) {
  if (t.task) HONE_RETURN_IF_ERROR(RecordTask(store, run_id, t, plan.tasks.size()));
  plan.tasks.push_back(std::move(t));
  return plan.tasks.size() - 1;
}

// The task a stored candidate was made for, loaded once: its index in the
// plan, or SIZE_MAX when it cannot be had.
struct StoredTasks {
  Store& store;
  int64_t source_run, run_id;
  const BenchTaskLoader& load;
  BenchListener& listener;
  std::map<std::string, std::string> category;  // stored hash -> category
  std::map<std::string, size_t> index;          // stored hash -> plan.tasks

  Result<size_t> Get(const std::string& hash, BenchPlan& plan) {
    if (auto it = index.find(hash); it != index.end()) return it->second;
    HONE_ASSIGN_OR_RETURN(auto row, store.GetTask(hash));
    if (!row || row->path.empty()) {
      ++plan.malformed;
      listener.PlanWarning(
          fmt::format("run {}: task {} has no path in the store; skipped", source_run, hash));
      return index[hash] = SIZE_MAX;
    }
    BenchTask t{row->path, category[hash], LoadForBench(row->path, load, listener, plan)};
    if (t.task && t.task->hash != hash)
      listener.PlanWarning(
          fmt::format("warning: {} changed since run {}; scoring against it as it is now",
                      row->path, source_run));
    bool loaded = t.task.has_value();
    HONE_ASSIGN_OR_RETURN(size_t i, AddTask(std::move(t), store, run_id, plan));
    return index[hash] = loaded ? i : SIZE_MAX;
  }
};

}  // namespace

Result<BenchPlan> PlanSuite(const FormatRegistry& formats, const fs::path& suite,
                            const SuiteLayout& layout, const BenchTaskLoader& load, Store& store,
                            int64_t run_id, BenchListener& listener) {
  HONE_ASSIGN_OR_RETURN(auto entries, DiscoverSuiteOf(formats, suite, layout));
  BenchPlan plan;
  for (const auto& e : entries) {
    BenchTask t{e.task, e.category, LoadForBench(e.task, load, listener, plan)};
    // A native task names its own category; a PyTorch problem's is its level.
    if (t.task && KindOf(*t.task).NamesItsCategory() && !t.task->category.empty())
      t.category = t.task->category;
    HONE_ASSIGN_OR_RETURN(size_t ti, AddTask(std::move(t), store, run_id, plan));
    if (!plan.tasks[ti].task) continue;
    for (const auto& sol : e.solutions) {
      BenchUnit u;
      u.task = ti;
      u.candidate = sol;
      u.label =
          (e.label.empty() ? plan.tasks[ti].task->name : e.label) + "/" + sol.filename().string();
      if (auto allow = e.allow.find(sol); allow != e.allow.end()) u.allow = allow->second;
      plan.units.push_back(std::move(u));
    }
  }
  return plan;
}

Result<BenchPlan> PlanFromRun(const LanguageRegistry& languages, int64_t source_run,
                              const BenchTaskLoader& load, Store& store, int64_t run_id,
                              BenchListener& listener) {
  HONE_ASSIGN_OR_RETURN(auto source_tasks, store.RunTasks(source_run));
  HONE_ASSIGN_OR_RETURN(auto attempts, store.Attempts(source_run));
  StoredTasks tasks{store, source_run, run_id, load, listener, {}, {}};
  for (const auto& t : source_tasks) tasks.category[t.task_hash] = t.category;
  fs::path sources = store.path().parent_path() / "sources";
  BenchPlan plan;
  for (const auto& c : attempts) {
    if (!c.source) continue;
    HONE_ASSIGN_OR_RETURN(size_t ti, tasks.Get(c.task_hash, plan));
    if (ti == SIZE_MAX) continue;
    // Rows stored before languages had names: their backend's native one.
    const Language* language = languages.Find(c.language);
    if (!language) language = languages.NativeFor(c.backend);
    if (!language) continue;
    fs::path file = sources / (SourceHash(*c.source) + language->source.extension());
    if (!fs::exists(file)) HONE_RETURN_IF_ERROR(WriteFileAtomic(file, *c.source));
    BenchUnit u;
    u.task = ti;
    u.candidate = file;
    u.label = fmt::format("{}/run{}#{}", plan.tasks[ti].task->name, source_run, c.seq);
    plan.units.push_back(std::move(u));
  }
  return plan;
}

}  // namespace hone
