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
// The kinds are asked in order, the latest registered first, then the
// built-in ones (task/reference_kind_pytorch.h, task/reference_kind_native.h);
// the native kind claims every task, so KindOf always answers. Kinds live
// for the whole process. Thread-safety: RegisterReferenceKind and KindOf
// may be called from any thread; a kind's own methods are const and
// thread-safe. A kind's failures are values (Status); asking a kind about a
// task it does not claim is a programmer error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "core/status.h"
#include "lang/language.h"
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

// The problem as a prompt shows it after the task's description:
// "\n\n<intro>:\n```<fence>\n<source>\n```".
struct ProblemListing {
  std::string intro;     // one sentence saying what the source is and what to do with it
  std::string fence;     // the code fence's tag
  std::string source;    // the text shown
  bool may_cut = false;  // a long source is cut to the prompt's limit; else shown whole
};

// The task's own reference as a candidate, timed for the first prompt.
struct ReferenceCandidate {
  std::filesystem::path file;
  std::set<std::string> lint_allow;  // lint rules the file needs allowed
  std::string what;  // what is timed, in words ("" for the prompt's default, "the reference")
};

// What the reference holds on the device beyond the tensors of a value set
// (bytes; run/memory_plan.h).
struct ReferenceMemory {
  int64_t forward_peak = 0;  // one forward beyond its inputs: outputs and intermediates
  int64_t draw_peak = 0;     // the most drawing one value set takes
  int64_t model = 0;         // the model's state
};

class ReferenceKind {
 public:
  virtual ~ReferenceKind() = default;

  // "native", "pytorch": for messages and tests.
  virtual std::string name() const = 0;
  // Whether `task`'s reference is of this kind.
  virtual bool Claims(const Task& task) const = 0;
  // Whether `path` names a problem whose reference is of this kind, before
  // any task is loaded from it (a native task's folder, a PyTorch problem
  // file). None by default: a kind reached only through a format
  // (format/task_format.h), which turns its problems into paths of another.
  virtual bool ClaimsProblemPath(const std::filesystem::path& path) const;
  // Where a suite keeps the solutions of `problem` (a path this kind
  // claims), in suite `solutions_root` and `category`: beside it in its
  // `solutions/` folder by default.
  virtual std::filesystem::path SolutionsFolder(const std::filesystem::path& problem,
                                                const std::filesystem::path& solutions_root,
                                                const std::string& category) const;
  virtual ReferenceSite site() const = 0;
  // Whether a KernelBench ModelNew candidate (a module that replaces the
  // task's Model) can be evaluated against this reference.
  virtual bool TakesModelNew() const = 0;
  // Whether the task names its own category (a native task's task.toml);
  // else a suite's folder (a KernelBench level) names it.
  virtual bool NamesItsCategory() const = 0;

  // The reference as a program written to the candidate contract for
  // `device` ("cpu", "cuda"), which a candidate can be compared with and
  // bench builds ahead; none when the reference is not such a program or
  // the task has none for `device`. None by default.
  virtual std::optional<std::filesystem::path> ReferenceProgram(const Task& task,
                                                                const std::string& device) const;

  // Text. The problem as a prompt for `language`'s candidates shows it;
  // none when there is nothing to show (a reference file that cannot be read).
  virtual std::optional<ProblemListing> Listing(const Task& task,
                                                const Language& language) const = 0;
  // A line said before the argument list of every case (task/task_text.h);
  // "" for none.
  virtual std::string ArgumentsPreamble(const Task& task) const;
  // Where input `i` comes from, after its line ("  (forward argument)"); ""
  // when nothing is to be said.
  virtual std::string InputOrigin(const Task& task, size_t i) const;
  // The sizes the problem ran with, for a one-line listing; "" when the
  // task's cases are all there is to say.
  virtual std::string SizesText(const Task& task) const;
  // What `hone task show --json` adds to `j` for this kind; nothing by default.
  virtual void AddJson(const Task& task, nlohmann::json& j) const;

  // Candidates made of the reference. The task's own reference as a
  // candidate for `device`, written in `dir` when it must be written.
  virtual Result<ReferenceCandidate> AsCandidate(const Task& task, const std::string& device,
                                                 const std::filesystem::path& dir) const = 0;
  // A candidate whose evaluation times and caches the baselines that are
  // timed apart from candidates (`hone prepare`), written in `dir`;
  // Status::Unavailable saying why when the kind has none.
  virtual Result<std::filesystem::path> BaselinesCandidate(
      const Task& task, const std::filesystem::path& dir) const = 0;

  // Memory and inputs. How many of the task's inputs are forward arguments,
  // drawn per value set (the rest are model state); all of them by default.
  virtual size_t ForwardArguments(const Task& task) const;
  // Whether the task's inputs include model state (parameters, buffers)
  // after the forward arguments; none by default.
  virtual bool HasState(const Task& task) const;
  // What the reference holds beyond a value set's tensors; nothing by default.
  virtual ReferenceMemory Memory(const Task& task) const;
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
