#include "serve/job_files.h"

#include "core/fs.h"
#include "task/oracle_service.h"
#include "task/reference_kind.h"

namespace hone {

Result<fs::path> ResolveProblem(const fs::path& problems, const std::string& name,
                                const FormatRegistry& formats) {
  fs::path rel(name);
  if (name.empty() || rel.is_absolute())
    return Status::Invalid("problem '" + name + "': must be a name inside the problem folder");
  for (const auto& part : rel)
    if (part == "..")
      return Status::Invalid("problem '" + name + "': must be a name inside the problem folder");
  if (problems.empty())
    return Status::NotFound("problem '" + name +
                            "': this worker has no problem folder (--problems)");
  std::error_code ec;
  fs::path py = problems / (name + kPyTorchFileExtension);
  if (fs::is_regular_file(py, ec)) return py;
  fs::path folder = problems / rel;
  if (fs::exists(folder, ec) && KindOfProblemPath(folder)) return folder;
  // A problem in another task format: a FlashInfer-Trace definition
  // ("definitions/rmsnorm/rmsnorm_h64", ".json" optional), a robust-kbench
  // task folder.
  for (const fs::path& p : {folder, fs::path(folder.string() + ".json")})
    if (fs::exists(p, ec) && formats.ForProblem(p).ok()) return p;
  return Status::NotFound("problem '" + name + "': neither " + py.string() + " nor a task folder " +
                          folder.string() + " nor a problem of another format (" +
                          formats.DescribeAll() + ") on this worker");
}

Result<JobFiles> JobFiles::Write(const EvalJob& job, const fs::path& problems,
                                 const fs::path& scratch, const FormatRegistry& formats,
                                 const LanguageRegistry& languages) {
  JobFiles files;
  // A named problem is resolved before the folder exists: a failure leaves nothing behind.
  if (job.problem_code.empty()) {
    HONE_ASSIGN_OR_RETURN(files.problem_, ResolveProblem(problems, job.problem_name, formats));
  }
  HONE_ASSIGN_OR_RETURN(files.folder_, MakeTempDir(scratch, "job"));
  if (!job.problem_code.empty()) {
    files.problem_ = files.folder_ / "problem.py";
    HONE_RETURN_IF_ERROR(WriteFileAtomic(files.problem_, job.problem_code));
  }
  files.candidate_ = files.folder_ / job.CandidateFileName(languages);
  HONE_RETURN_IF_ERROR(WriteFileAtomic(files.candidate_, job.candidate_code));
  return files;
}

JobFiles::JobFiles(JobFiles&& o) noexcept
    : folder_(std::move(o.folder_)),
      problem_(std::move(o.problem_)),
      candidate_(std::move(o.candidate_)) {
  o.folder_.clear();
}

JobFiles::~JobFiles() {
  if (folder_.empty()) return;
  std::error_code ec;
  fs::remove_all(folder_, ec);
}

}  // namespace hone
