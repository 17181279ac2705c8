#include "task/reference_kind_native.h"

#include "core/fs.h"
#include "task/task_loader.h"

namespace hone {
namespace {

// A task folder: the one with task.toml.
class NativeProblemPaths final : public ReferencePaths {
 public:
  bool ClaimsProblemPath(const std::filesystem::path& path) const override {
    return IsNativeTaskDir(path);
  }
};

// The reference is itself a program to the candidate contract.
class NativePrograms final : public ReferencePrograms {
 public:
  std::optional<std::filesystem::path> ReferenceProgram(const Task& task,
                                                        const std::string& device) const override {
    auto path = task.ReferenceFor(device);
    if (!path.ok()) return std::nullopt;
    return *path;
  }

  Result<ReferenceCandidate> AsCandidate(const Task& task, const std::string& device,
                                         const std::filesystem::path&) const override {
    HONE_ASSIGN_OR_RETURN(std::filesystem::path path, task.ReferenceFor(device));
    return ReferenceCandidate{path, {}, ""};
  }

  Result<std::filesystem::path> BaselinesCandidate(const Task&,
                                                   const std::filesystem::path&) const override {
    return Status::Unavailable("a native task's reference is timed beside each candidate");
  }
};

// The prompt shows the reference program for the language's first device.
class NativeText final : public ReferenceText {
 public:
  explicit NativeText(const NativePrograms& programs) : programs_(programs) {}

  std::optional<ProblemListing> Listing(const Task& task, const Language& language) const override {
    auto path = programs_.ReferenceProgram(task, language.run.devices.front());
    if (!path) return std::nullopt;
    auto source = ReadFile(*path);
    if (!source.ok()) return std::nullopt;
    return ProblemListing{"The reference implementation (" + path->filename().string() +
                              "): your kernel must compute what it computes, and is timed "
                              "against it",
                          language.source.fence(), std::move(*source), true};
  }

 private:
  const NativePrograms& programs_;
};

// Inputs and memory are the defaults: every input drawn, nothing held.
class NativeKind final : public ReferenceKind {
 public:
  std::string name() const override { return "native"; }
  bool Claims(const Task&) const override { return true; }
  ReferenceSite site() const override { return ReferenceSite::kSandbox; }
  bool TakesModelNew() const override { return false; }
  bool NamesItsCategory() const override { return true; }

  const ReferencePaths& paths() const override { return paths_; }
  const ReferencePrograms& programs() const override { return programs_; }
  const ReferenceText& text() const override { return text_; }

 private:
  NativeProblemPaths paths_;
  NativePrograms programs_;
  NativeText text_{programs_};
};

}  // namespace

std::unique_ptr<ReferenceKind> NativeReferenceKind() { return std::make_unique<NativeKind>(); }

}  // namespace hone
