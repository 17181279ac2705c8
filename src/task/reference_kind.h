// The reference-kind seam. Whatever format a problem comes in
// (format/task_format.h), hone evaluates it against one of a few kinds of
// reference: a native task's reference.cpp or .cu, built and run by hone in
// a sandbox, or a PyTorch task's KernelBench module, run by the oracle
// (task/oracle_service.h). A ReferenceKind carries every decision general
// code (prompts, lessons, the first turn, `hone task show`, `hone prepare`,
// bench, the evaluator and the memory plan) makes by the kind of a task's
// reference, so none of that code tests `Task::pytorch` itself, and a new
// kind is one new implementation of this interface, registered once.
//
// A kind is its name, which tasks it claims, where its reference runs and
// two yes-or-no traits, plus four facets, each an interface of its own that
// a caller asks for the part it uses:
//   paths()     problem paths before a task exists, solutions' folders
//               (task/reference_paths.h)
//   programs()  the reference as files to build or evaluate
//               (task/reference_programs.h)
//   text()      what prompts and `hone task show` say (task/reference_text.h)
//   inputs()    forward arguments, model state, memory held
//               (task/reference_inputs.h)
//
// The kinds are asked in order, the latest registered first, then the
// built-in ones (task/reference_kind_pytorch.h, task/reference_kind_native.h);
// the native kind claims every task, so KindOf always answers. Kinds and
// their facets live for the whole process. Thread-safety:
// RegisterReferenceKind and KindOf may be called from any thread; a kind's
// and its facets' methods are const and thread-safe. A kind's failures are
// values (Status); asking a kind about a task it does not claim is a
// programmer error.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "task/reference_inputs.h"
#include "task/reference_paths.h"
#include "task/reference_programs.h"
#include "task/reference_text.h"
#include "task/task.h"

namespace hone {

// Where a reference runs, which decides how the run pipeline gets its
// expected outputs (run/reference_source.h), what an evaluation holds in
// memory beside the candidate (run/memory_plan.h) and what bench prepares
// per lane (bench/scheduler.h).
enum class ReferenceSite {
  // A program hone builds and runs in a sandbox of its own, timed beside the
  // candidate (run/native_reference.h); bench builds it ahead.
  kSandbox,
  // The oracle, a service process that holds the loaded problem, draws
  // value sets on the device and keeps a timing pool
  // (pytorch/oracle_reference.h); each bench lane's oracle loads its own copy.
  kOracle,
};

class ReferenceKind {
 public:
  virtual ~ReferenceKind() = default;

  // "native", "pytorch": for messages and tests.
  virtual std::string name() const = 0;
  // Whether `task`'s reference is of this kind.
  virtual bool Claims(const Task& task) const = 0;
  virtual ReferenceSite site() const = 0;
  // Whether a KernelBench ModelNew candidate (a module that replaces the
  // task's Model) can be evaluated against this reference.
  virtual bool TakesModelNew() const = 0;
  // Whether the task names its own category (a native task's task.toml);
  // else a suite's folder (a KernelBench level) names it.
  virtual bool NamesItsCategory() const = 0;

  // The facets, owned by the kind. Problem paths: by default none claimed,
  // solutions beside the problem.
  virtual const ReferencePaths& paths() const;
  virtual const ReferencePrograms& programs() const = 0;
  virtual const ReferenceText& text() const = 0;
  // Inputs and memory: by default a program's (every input drawn, no state).
  virtual const ReferenceInputs& inputs() const;
};

// Adds `kind` ahead of every kind registered before it.
void RegisterReferenceKind(std::unique_ptr<ReferenceKind> kind);

// The kind of `task`'s reference: the first that claims it.
const ReferenceKind& KindOf(const Task& task);

// The kind of the problem at `path`: the first that claims the path;
// nullptr when none does (not a problem hone loads as it is).
const ReferenceKind* KindOfProblemPath(const std::filesystem::path& path);

// Whether loading the problem at `path` needs the oracle: its kind's
// reference runs there (ReferenceSite::kOracle).
bool LoadsThroughOracle(const std::filesystem::path& path);

// The registered kind named `name`; nullptr when there is none.
const ReferenceKind* FindReferenceKind(const std::string& name);

}  // namespace hone
