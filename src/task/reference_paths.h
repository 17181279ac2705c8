// A reference kind's problem paths (task/reference_kind.h): which paths
// name a problem of the kind before any task is loaded from them, and where
// a suite keeps such a problem's solutions. Asked by KindOfProblemPath and
// LoadsThroughOracle (what loads a problem: hone eval, the service, hone
// task show of a folder) and by suite listing (task/suite.h).
//
// The defaults claim no path (a kind reached only through a format,
// format/task_format.h, which turns its problems into paths of another)
// and keep solutions beside the problem. Owned by its kind, which lives for
// the whole process; const and thread-safe. Failures are answers (false, a
// path that may not exist), never errors.
#pragma once

#include <filesystem>
#include <string>

namespace hone {

class ReferencePaths {
 public:
  virtual ~ReferencePaths() = default;

  // Whether `path` names a problem whose reference is of this kind (a
  // native task's folder, a PyTorch problem file). None by default.
  virtual bool ClaimsProblemPath(const std::filesystem::path& path) const;
  // Where a suite keeps the solutions of `problem` (a path this kind
  // claims), in suite `solutions_root` and `category`: beside it in its
  // `solutions/` folder by default.
  virtual std::filesystem::path SolutionsFolder(const std::filesystem::path& problem,
                                                const std::filesystem::path& solutions_root,
                                                const std::string& category) const;
};

}  // namespace hone
