#include "task/reference_kind_native.h"

#include "core/fs.h"
#include "task/task_loader.h"

namespace hone {
namespace {

class NativeKind final : public ReferenceKind {
 public:
  std::string name() const override { return "native"; }
  bool Claims(const Task&) const override { return true; }
  bool ClaimsProblemPath(const std::filesystem::path& path) const override {
    return IsNativeTaskDir(path);
  }
  ReferenceSite site() const override { return ReferenceSite::kSandbox; }
  bool TakesModelNew() const override { return false; }
  bool NamesItsCategory() const override { return true; }

  std::optional<std::filesystem::path> ReferenceProgram(const Task& task,
                                                        const std::string& device) const override {
    auto path = task.ReferenceFor(device);
    if (!path.ok()) return std::nullopt;
    return *path;
  }

  std::optional<ProblemListing> Listing(const Task& task, const Language& language) const override {
    auto path = ReferenceProgram(task, language.devices.front());
    if (!path) return std::nullopt;
    auto source = ReadFile(*path);
    if (!source.ok()) return std::nullopt;
    return ProblemListing{"The reference implementation (" + path->filename().string() +
                              "): your kernel must compute what it computes, and is timed "
                              "against it",
                          language.fence(), std::move(*source), true};
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

}  // namespace

std::unique_ptr<ReferenceKind> NativeReferenceKind() { return std::make_unique<NativeKind>(); }

}  // namespace hone
