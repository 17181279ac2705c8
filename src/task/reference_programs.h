// A reference kind's programs (task/reference_kind.h): the task's reference
// as files hone builds or evaluates. The reference as a program written to
// the candidate contract (lessons diff against it, bench builds it ahead),
// the reference timed as the first turn's candidate (search/optimizer.h),
// and the candidate `hone prepare` and the evaluator time baselines with.
//
// Owned by its kind, which lives for the whole process; const and
// thread-safe, each call writing only in the folder it is given. Failures
// are values (Status, or none where nothing fits); asking about a task the
// kind does not claim is a programmer error.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "core/status.h"
#include "task/task.h"

namespace hone {

// The task's own reference as a candidate, timed for the first prompt.
struct ReferenceCandidate {
  std::filesystem::path file;
  std::set<std::string> lint_allow;  // lint rules the file needs allowed
  std::string what;  // what is timed, in words ("" for the prompt's default, "the reference")
};

class ReferencePrograms {
 public:
  virtual ~ReferencePrograms() = default;

  // The reference as a program written to the candidate contract for
  // `device` ("cpu", "cuda"), which a candidate can be compared with and
  // bench builds ahead; none when the reference is not such a program or
  // the task has none for `device`. None by default.
  virtual std::optional<std::filesystem::path> ReferenceProgram(const Task& task,
                                                                const std::string& device) const;
  // The task's own reference as a candidate for `device`, written in `dir`
  // when it must be written.
  virtual Result<ReferenceCandidate> AsCandidate(const Task& task, const std::string& device,
                                                 const std::filesystem::path& dir) const = 0;
  // A candidate whose evaluation times and caches the baselines that are
  // timed apart from candidates (`hone prepare`), written in `dir`;
  // Status::Unavailable saying why when the kind has none.
  virtual Result<std::filesystem::path> BaselinesCandidate(
      const Task& task, const std::filesystem::path& dir) const = 0;
};

}  // namespace hone
