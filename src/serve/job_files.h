// The files a worker evaluates one job from: the problem (a file or folder
// of the worker's problem folder, or the job's own problem source written
// out) and the candidate source, in a private folder of its own.
//
// Ownership: a JobFiles owns its folder (mode 0700) and removes it when
// destroyed; move-only. A named problem is only pointed at, never copied.
//
// Failure: a problem name that resolves to nothing is Status::NotFound, a
// name that leaves the problem folder ("..", absolute) Status::Invalid, and
// a folder that cannot be written Status::Io. None of these says anything
// about the candidate: the worker reports them as infra errors.
// Thread-compatible.
#pragma once

#include <filesystem>
#include <string>

#include "core/status.h"
#include "format/task_format.h"
#include "lang/language.h"
#include "serve/eval_job.h"

namespace hone {

// A named problem in `problems`: `<name>.py` (a PyTorch problem), else the
// native task folder `<name>/` (with task.toml), else `<name>` (or
// `<name>.json`) when one of `formats` reads it.
Result<std::filesystem::path> ResolveProblem(const std::filesystem::path& problems,
                                             const std::string& name,
                                             const FormatRegistry& formats);

class JobFiles {
 public:
  // Makes a private folder under `scratch` and writes the job's files into
  // it: the candidate under its kind's name in `languages`, a named problem
  // resolved in `problems` by `formats`. Both registries borrowed for the call.
  static Result<JobFiles> Write(const EvalJob& job, const std::filesystem::path& problems,
                                const std::filesystem::path& scratch, const FormatRegistry& formats,
                                const LanguageRegistry& languages);
  ~JobFiles();
  JobFiles(JobFiles&& o) noexcept;
  JobFiles& operator=(JobFiles&&) = delete;
  JobFiles(const JobFiles&) = delete;

  const std::filesystem::path& folder() const { return folder_; }
  // A .py problem file or a native task folder.
  const std::filesystem::path& problem() const { return problem_; }
  const std::filesystem::path& candidate() const { return candidate_; }

 private:
  JobFiles() = default;
  std::filesystem::path folder_, problem_, candidate_;
};

}  // namespace hone
