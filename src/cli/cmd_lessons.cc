// hone lessons list|export|delete: the lessons optimize runs distilled
// (search/lesson_distil.h), as the run store keeps them.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/store_flags.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "report/lesson_text.h"
#include "search/lesson_distil.h"

namespace hone::cli {
namespace {

struct LessonsArgs {
  std::string store, task, output;
  std::vector<std::string> ids;
  bool json = false, quiet = false;
  bool task_given = false;
};

// The store the lessons are in; never created by a command that only reads
// or deletes.
Result<std::unique_ptr<Store>> OpenExisting(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status::Invalid(path + ": no run store there (--store)");
  return OpenStore(path);
}

Result<std::vector<LessonRow>> Selected(const LessonsArgs& a) {
  if (a.task_given && a.task.empty())
    return Status::Invalid("--task: expected a task name or a task hash (or its start), got ''");
  HONE_ASSIGN_OR_RETURN(auto store, OpenExisting(a.store));
  return store->Lessons(a.task);
}

// Whether an optimize run's stored configuration names `task` (the task
// folder's or problem file's name, as lessons name tasks); every run when
// `task` is empty.
bool RunOnTask(const RunRow& r, const std::string& task) {
  if (task.empty()) return true;
  auto config = nlohmann::json::parse(r.config, nullptr, false);
  if (!config.is_object() || !config["task"].is_string()) return false;
  return std::filesystem::path(config["task"].get<std::string>()).stem().string() == task;
}

// Why a store holds no lessons: none are written by hand, only distilled
// when an optimize run finishes with a clear speedup.
std::string WhyNoLessons(const LessonsArgs& a) {
  std::string what = a.task.empty() ? "no lessons yet" : "no lessons for task '" + a.task + "'";
  int optimize_runs = 0, finished = 0;
  if (auto store = OpenExisting(a.store); store.ok())
    if (auto runs = (*store)->ListRuns(); runs.ok())
      for (const RunRow& r : *runs)
        if (r.kind == "optimize" && RunOnTask(r, a.task)) {
          ++optimize_runs;
          finished += r.status == "finished";
        }
  std::string rule =
      "lessons are distilled when a `hone optimize` run finishes, from its kernels that were "
      "faster by at least " +
      fmt::format("{:g}", kMinLessonGain) +
      "x (the low end of their speedup's 95% interval, not its median)";
  const std::string on = a.task.empty() ? "" : " on it";
  if (optimize_runs == 0) return what + ": " + rule + "; this store has no optimize run" + on;
  return what + ": " + rule +
         fmt::format(
             "; of this store's {} optimize run{}{} ({} finished), none "
             "gave one (an untimed run, --no-lessons, or no such gain)",
             optimize_runs, optimize_runs == 1 ? "" : "s", on, finished);
}

int RunList(const LessonsArgs& a) {
  auto lessons = Selected(a);
  if (!lessons.ok()) return ReportError(lessons.status());
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const LessonRow& l : *lessons) list.push_back(LessonJson(l));
    std::cout << JsonText(list, 2) << "\n";
  } else if (lessons->empty()) {
    std::cout << WhyNoLessons(a) << "\n";
  } else {
    std::cout << LessonsTable(*lessons);
  }
  return kExitOk;
}

int RunExport(const LessonsArgs& a) {
  if (Status st = CheckOutputFile(a.output); !st.ok()) return ReportError(st);
  auto lessons = Selected(a);
  if (!lessons.ok()) return ReportError(lessons.status());
  std::string text;
  for (const LessonRow& l : *lessons) text += JsonText(LessonJson(l)) + "\n";
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else if (Status st = WriteFileAtomic(a.output, text); !st.ok()) {
    return ReportError(st);
  }
  if (!a.quiet)
    std::fprintf(stderr, "hone: exported %zu lesson%s%s\n", lessons->size(),
                 lessons->size() == 1 ? "" : "s",
                 a.output.empty() ? "" : (" to " + a.output).c_str());
  return kExitOk;
}

// Positive whole numbers, each once, in the order given.
Result<std::vector<int64_t>> ParseIds(const std::vector<std::string>& words) {
  std::vector<int64_t> ids;
  std::set<int64_t> seen;
  for (const std::string& w : words) {
    char* end = nullptr;
    long long id = std::strtoll(w.c_str(), &end, 10);
    if (w.empty() || *end != '\0' || id <= 0)
      return Status::Invalid(
          "ID: expected a lesson id (a positive number, as hone lessons list "
          "shows), got '" +
          w + "'");
    if (seen.insert(id).second) ids.push_back(id);
  }
  return ids;
}

int RunDelete(const LessonsArgs& a) {
  auto ids = ParseIds(a.ids);
  if (!ids.ok()) return ReportError(ids.status());
  auto store = OpenExisting(a.store);
  if (!store.ok()) return ReportError(store.status());
  Status st = (*store)->DeleteLessons(*ids);
  // An id that is not stored is the user's mistake: nothing was deleted.
  if (st.code() == StatusCode::kNotFound)
    return ReportError(Status::Invalid("ID: " + st.message() + "; nothing deleted"));
  if (!st.ok()) return ReportError(st);
  if (!a.quiet) {
    std::string list;
    for (int64_t id : *ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
    std::fprintf(stderr, "hone: deleted %zu lesson%s: %s\n", ids->size(),
                 ids->size() == 1 ? "" : "s", list.c_str());
  }
  return kExitOk;
}

CLI::Option* AddTaskFlag(CLI::App* sub, LessonsArgs& a) {
  return sub->add_option("--task", a.task,
                         "Only the lessons learnt on this task (its name, or its hash or at least "
                         "its first 8 characters)");
}

}  // namespace

Command RegisterLessons(CLI::App& app) {
  auto a = std::make_shared<LessonsArgs>();
  CLI::App* lessons = app.add_subcommand(
      "lessons", "List, export or delete the lessons optimize runs distilled for similar tasks");
  lessons->require_subcommand(1);
  CLI::App* list = lessons->add_subcommand("list", "Print the stored lessons");
  CLI::Option* list_task = AddTaskFlag(list, *a);
  AddStoreFlag(list, a->store);
  list->add_flag("--json", a->json, "Print one JSON array of lessons");
  CLI::App* exp = lessons->add_subcommand("export", "Write the lessons as JSON Lines");
  CLI::Option* export_task = AddTaskFlag(exp, *a);
  AddStoreFlag(exp, a->store);
  exp->add_option("-o,--output", a->output, "Write here (default: standard output)");
  exp->add_flag("-q,--quiet", a->quiet, "Do not say how many lessons were written");
  CLI::App* del = lessons->add_subcommand("delete", "Delete lessons by id");
  del->add_option("id", a->ids, "The lessons' ids (hone lessons list shows them)")->required();
  AddStoreFlag(del, a->store);
  del->add_flag("-q,--quiet", a->quiet, "Do not say what was deleted");
  return [=] {
    a->task_given = list_task->count() > 0 || export_task->count() > 0;
    if (list->parsed()) return RunList(*a);
    if (exp->parsed()) return RunExport(*a);
    return RunDelete(*a);
  };
}

}  // namespace hone::cli
