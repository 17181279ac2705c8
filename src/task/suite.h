// A benchmark suite on disk: which tasks it holds, in which category, and
// the solutions to score for each. Layouts (docs/BENCH.md):
//   - a native task folder (task.toml), or a folder of them; solutions in
//     TASK/solutions/;
//   - a folder of PyTorch problem files (KernelBench's level folder), or a
//     folder of such folders (level1/, level2/: the categories); a
//     problem's solutions in SOLUTIONS/<stem>/ or SOLUTIONS/<category>/<stem>/,
//     SOLUTIONS defaulting to SUITE/candidates.
// Which files are solutions is the caller's to say (SuiteLayout::
// is_solution: those of a language that runs on the bench's backend,
// lang/language.h). Files starting with '_' or '.' are ignored. Everything is sorted
// (tasks in natural order, 2_x before 10_x) so that a suite enumerates the
// same way every time: `hone bench --resume` relies on it.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/backend_names.h"
#include "core/status.h"

namespace hone {

struct SuiteEntry {
  std::filesystem::path task;  // a task folder or a .py problem
  std::string category;        // the level folder; the suite's name when flat
  std::vector<std::filesystem::path> solutions;
  // Lint rules a solution's format allows it, by solution (format/task_format.h).
  std::map<std::filesystem::path, std::set<std::string>> allow;
  // The format's label of the task in a suite ("" for its name): a
  // FlashInfer-Trace workload's axes.
  std::string label;
};

struct SuiteLayout {
  std::string backend = kHostBackend;  // whose solutions, for messages
  // Whether a file of a solutions folder is a solution to score; null: any.
  std::function<bool(const std::filesystem::path&)> is_solution;
  std::vector<std::string> only;         // solution stems to keep (empty: all)
  std::filesystem::path solutions_root;  // PyTorch problems (empty: SUITE/candidates)
};

// Whether `dir` is a native task folder, or holds native task folders or
// PyTorch problem files, directly or in level folders.
bool HoldsNativeOrPyTorchTasks(const std::filesystem::path& dir);

// Checks layout.only against the entries' solution stems and keeps those it
// names (every format's Discover ends with it).
Status ApplyOnly(const std::filesystem::path& suite, std::vector<SuiteEntry>& entries,
                 const SuiteLayout& layout);

// Errors (kInvalidInput): not a folder, nothing that looks like a task in it,
// a name of layout.only that is no solution's.
Result<std::vector<SuiteEntry>> DiscoverSuite(const std::filesystem::path& suite,
                                              const SuiteLayout& layout);

}  // namespace hone
