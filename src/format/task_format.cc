#include "format/task_format.h"

#include "core/wording.h"

namespace hone {

Result<std::vector<ProblemPart>> TaskFormat::Parts(const std::filesystem::path& problem,
                                                   const PartOptions& options) const {
  if (!options.workloads.empty())
    return Status::Invalid("--workloads: only a FlashInfer-Trace definition takes workloads; " +
                           problem.string() + " is " + describe());
  return std::vector<ProblemPart>{{problem, "", ""}};
}

Result<FormatCandidate> TaskFormat::Candidate(const std::filesystem::path&,
                                              const std::filesystem::path& candidate) const {
  return FormatCandidate{candidate, {}, "", ""};
}

std::string TaskFormat::StatusOf(const Verdict&) const { return ""; }

void FormatRegistry::Register(std::unique_ptr<TaskFormat> format) {
  if (!format || Find(format->name())) std::abort();  // a programmer's error: twice, or none
  formats_.push_back(std::move(format));
}

const TaskFormat* FormatRegistry::Find(const std::string& name) const {
  for (const auto& f : formats_)
    if (f->name() == name) return f.get();
  return nullptr;
}

Result<const TaskFormat*> FormatRegistry::ForProblem(const std::filesystem::path& path) const {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status::Invalid(path.string() + ": no such file or folder");
  for (const auto& f : formats_)
    if (f->ClaimsProblem(path)) return f.get();
  return Status::Invalid(path.string() + ": not a problem hone reads (it takes " + DescribeAll() +
                         ")");
}

const TaskFormat* FormatRegistry::ForSuite(const std::filesystem::path& path) const {
  for (const auto& f : formats_)
    if (f->ClaimsSuite(path)) return f.get();
  return nullptr;
}

std::string FormatRegistry::DescribeAll() const {
  std::vector<std::string> described;
  for (const auto& f : formats_) described.push_back(f->describe());
  return OneOf(described);
}

Result<std::vector<SuiteEntry>> DiscoverSuiteOf(const FormatRegistry& formats,
                                                const std::filesystem::path& suite,
                                                const SuiteLayout& layout) {
  std::error_code ec;
  if (!std::filesystem::is_directory(suite, ec))
    return Status::Invalid(suite.string() + ": not a directory");
  const TaskFormat* f = formats.ForSuite(suite);
  if (!f)
    return Status::Invalid(suite.string() + ": no tasks found (it takes a folder of " +
                           formats.DescribeAll() + ", directly or in level folders)");
  return f->Discover(suite, layout);
}

}  // namespace hone
