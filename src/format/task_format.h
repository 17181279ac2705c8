// The task-format seam: how the field's benchmark formats reach hone's task
// model. A TaskFormat recognises a path (a problem file or folder, or a
// suite folder laid out its way), splits one problem into the parts hone
// evaluates (a FlashInfer-Trace definition: one part per workload; the
// others: one), turns a candidate file of its own (a FlashInfer-Trace
// solution .json) into the file hone evaluates, and lays out a suite.
//
// A part is what hone's loaders read: a native task folder (task.toml,
// task/task_loader.h) or a KernelBench-format .py file (the oracle,
// task/oracle_service.h). A format whose problems are neither writes such a
// file for each part (FlashInfer-Trace: format/flashinfer_codegen.h), so
// the whole pipeline (oracle, sandbox, checks, timing, prompts, store)
// serves every format alike.
//
// Formats are registered once (format/builtin_formats.h; a test adds its
// own) and asked in registration order. Failures are values:
// Status::Invalid naming the file and field of a malformed problem (exit
// 2). Thread-safety: a registry is read-only once built.
#pragma once

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "task/suite.h"
#include "verify/verdict.h"

namespace hone {

// One part of a problem, as hone loads and evaluates it.
struct ProblemPart {
  std::filesystem::path load;  // a native task folder or a KernelBench-format .py
  std::string label;           // "" for a problem of one part; else what tells it apart
  std::string id;              // the format's id of the part (a workload's uuid); may be ""
};

// A candidate as hone evaluates it.
struct FormatCandidate {
  std::filesystem::path file;   // a file of a language hone runs (lang/language.h)
  std::set<std::string> allow;  // lint rules its format allows it
  std::string name;             // the format's name for it ("" when the file is its own)
  std::string note;             // what hone made of it, for the verdict ("" when nothing)
};

struct PartOptions {
  // A workload file for a FlashInfer-Trace definition (else where the
  // dataset's layout puts its workloads).
  std::filesystem::path workloads;
};

class TaskFormat {
 public:
  virtual ~TaskFormat() = default;
  // "native", "kernelbench", "flashinfer-trace", ...
  virtual std::string name() const = 0;
  // For messages and docs: "a FlashInfer-Trace definition (.json)".
  virtual std::string describe() const = 0;
  // Whether `path` is one problem of this format.
  virtual bool ClaimsProblem(const std::filesystem::path& path) const = 0;
  // Whether `path` is a folder laid out as this format lays out a suite.
  virtual bool ClaimsSuite(const std::filesystem::path& path) const = 0;
  // The parts of one problem this format claims, in order.
  virtual Result<std::vector<ProblemPart>> Parts(const std::filesystem::path& problem,
                                                 const PartOptions& options) const;
  // `candidate` as hone evaluates it against `problem`: the default takes
  // the file as it is.
  virtual Result<FormatCandidate> Candidate(const std::filesystem::path& problem,
                                            const std::filesystem::path& candidate) const;
  // The format's own name of a verdict's status ("PASSED",
  // "INCORRECT_NUMERICAL" for FlashInfer-Trace); "" when it has none.
  virtual std::string StatusOf(const Verdict& v) const;
  // Every task of a suite this format claims, with its solutions.
  virtual Result<std::vector<SuiteEntry>> Discover(const std::filesystem::path& suite,
                                                   const SuiteLayout& layout) const = 0;
};

class FormatRegistry {
 public:
  void Register(std::unique_ptr<TaskFormat> format);
  const TaskFormat* Find(const std::string& name) const;
  // The format of a problem path, or Status::Invalid naming the path and
  // every format's description.
  Result<const TaskFormat*> ForProblem(const std::filesystem::path& path) const;
  // The format whose suite layout `path` has; nullptr when none claims it.
  const TaskFormat* ForSuite(const std::filesystem::path& path) const;
  // "a native task folder (task.toml), a KernelBench problem (.py) or ...".
  std::string DescribeAll() const;
  const std::vector<std::unique_ptr<TaskFormat>>& formats() const { return formats_; }

 private:
  std::vector<std::unique_ptr<TaskFormat>> formats_;
};

// Discovers a suite through the format that claims it (the first in order).
Result<std::vector<SuiteEntry>> DiscoverSuiteOf(const FormatRegistry& formats,
                                                const std::filesystem::path& suite,
                                                const SuiteLayout& layout);

}  // namespace hone
