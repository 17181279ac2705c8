#include "task/suite.h"

#include <algorithm>
#include <set>

#include "core/fs.h"
#include "task/reference_kind.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

bool Hidden(const fs::path& p) {
  std::string name = p.filename().string();
  return name.empty() || name[0] == '_' || name[0] == '.';
}

bool ByNaturalName(const fs::path& a, const fs::path& b) {
  return NaturalLess(a.filename().string(), b.filename().string());
}

std::vector<fs::path> Children(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (!Hidden(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end(), ByNaturalName);
  return out;
}

bool Wanted(const fs::path& file, const SuiteLayout& layout) {
  return fs::is_regular_file(file) && !Hidden(file) &&
         (!layout.is_solution || layout.is_solution(file));
}

std::vector<fs::path> SolutionsIn(const fs::path& dir, const SuiteLayout& layout) {
  std::vector<fs::path> out;
  for (const auto& f : Children(dir))
    if (Wanted(f, layout)) out.push_back(f);
  return out;
}

// A folder's problem files and native task folders, as entries of `category`.
void AddTasksOf(const fs::path& dir, const std::string& category, const fs::path& solutions_root,
                const SuiteLayout& layout, std::vector<SuiteEntry>& out) {
  for (const auto& p : Children(dir))
    if (const ReferenceKind* kind = KindOfProblemPath(p))
      out.push_back(
          {p,
           category,
           SolutionsIn(kind->paths().SolutionsFolder(p, solutions_root, category), layout),
           {},
           {}});
}

bool HasProblems(const fs::path& dir) {
  for (const auto& p : Children(dir))
    if (KindOfProblemPath(p)) return true;
  return false;
}

// "fast, naive, tiled": the solution names of the suite, the first few.
std::string SolutionNames(const std::vector<SuiteEntry>& entries) {
  std::set<std::string> names;
  for (const auto& e : entries)
    for (const auto& s : e.solutions) names.insert(s.stem().string());
  constexpr size_t kShown = 12;
  std::string list;
  size_t n = 0;
  for (const auto& name : names) {
    if (n++ == kShown) return list + ", ... (" + std::to_string(names.size()) + " in all)";
    list += (list.empty() ? "" : ", ") + name;
  }
  return list;
}

// Every name of layout.only must be some solution's stem: a misspelt name
// would otherwise leave nothing to score and say nothing.
Status CheckOnlyMatches(const fs::path& suite, const std::vector<SuiteEntry>& entries,
                        const SuiteLayout& layout) {
  std::set<std::string> stems;
  for (const auto& e : entries)
    for (const auto& s : e.solutions) stems.insert(s.stem().string());
  for (const auto& name : layout.only) {
    if (stems.count(name)) continue;
    std::string there = stems.empty()
                            ? "there are no " + layout.backend + " solutions in " + suite.string()
                            : "the " + layout.backend + " solutions in " + suite.string() + ": " +
                                  SolutionNames(entries);
    return Status::Invalid("--only '" + name + "' matched no solution of any task (" + there + ")");
  }
  return Status::Ok();
}

// Keeps the solutions named by layout.only (all of them when it is empty),
// and only the tasks that have one: a task with none of them was not asked
// about, and would count as unsolved.
void KeepOnly(std::vector<SuiteEntry>& entries, const SuiteLayout& layout) {
  if (layout.only.empty()) return;
  std::set<std::string> only(layout.only.begin(), layout.only.end());
  for (auto& e : entries)
    std::erase_if(e.solutions, [&](const fs::path& s) { return !only.count(s.stem().string()); });
  std::erase_if(entries, [](const SuiteEntry& e) { return e.solutions.empty(); });
}

// Every task of the suite with all its solutions for the backend.
Result<std::vector<SuiteEntry>> DiscoverAll(const fs::path& suite, const SuiteLayout& layout) {
  std::error_code ec;
  if (!fs::is_directory(suite, ec)) return Status::Invalid(suite.string() + ": not a directory");
  std::vector<SuiteEntry> out;
  std::string name = fs::absolute(suite).lexically_normal().filename().string();
  if (name.empty()) name = fs::absolute(suite).lexically_normal().parent_path().filename().string();
  fs::path root = layout.solutions_root.empty() ? suite / "candidates" : layout.solutions_root;
  if (const ReferenceKind* kind = KindOfProblemPath(suite)) {  // one task folder
    out.push_back({suite,
                   name,
                   SolutionsIn(kind->paths().SolutionsFolder(suite, root, name), layout),
                   {},
                   {}});
    return out;
  }
  AddTasksOf(suite, name, root, layout, out);
  // Level folders: each a category.
  for (const auto& sub : Children(suite))
    if (fs::is_directory(sub) && !KindOfProblemPath(sub) && sub != root && HasProblems(sub))
      AddTasksOf(sub, sub.filename().string(), root, layout, out);
  if (out.empty())
    return Status::Invalid(suite.string() +
                           ": no tasks found (task folders with task.toml, or PyTorch problem "
                           ".py files, directly or in level folders)");
  return out;
}

}  // namespace

bool HoldsNativeOrPyTorchTasks(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  if (KindOfProblemPath(dir) || HasProblems(dir)) return true;
  for (const auto& sub : Children(dir))
    if (fs::is_directory(sub) && HasProblems(sub)) return true;
  return false;
}

Status ApplyOnly(const fs::path& suite, std::vector<SuiteEntry>& entries,
                 const SuiteLayout& layout) {
  HONE_RETURN_IF_ERROR(CheckOnlyMatches(suite, entries, layout));
  KeepOnly(entries, layout);
  return Status::Ok();
}

Result<std::vector<SuiteEntry>> DiscoverSuite(const fs::path& suite, const SuiteLayout& layout) {
  HONE_ASSIGN_OR_RETURN(std::vector<SuiteEntry> entries, DiscoverAll(suite, layout));
  HONE_RETURN_IF_ERROR(ApplyOnly(suite, entries, layout));
  return entries;
}

}  // namespace hone
