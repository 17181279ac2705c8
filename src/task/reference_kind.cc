#include "task/reference_kind.h"

#include <mutex>
#include <vector>

#include "task/reference_kind_native.h"
#include "task/reference_kind_pytorch.h"

namespace hone {
namespace {

// Every kind, the first asked first; the built-in ones at the end, the
// native kind (which claims every task) last.
struct KindList {
  std::mutex mu;
  std::vector<std::unique_ptr<ReferenceKind>> kinds;

  KindList() {
    kinds.push_back(PyTorchReferenceKind());
    kinds.push_back(NativeReferenceKind());
  }
};

KindList& Kinds() {
  static KindList* list = new KindList();  // never destroyed: kinds outlive every caller
  return *list;
}

}  // namespace

const ReferencePaths& ReferenceKind::paths() const {
  static const ReferencePaths* defaults = new ReferencePaths();  // never destroyed, as kinds
  return *defaults;
}

const ReferenceInputs& ReferenceKind::inputs() const {
  static const ReferenceInputs* defaults = new ReferenceInputs();  // never destroyed, as kinds
  return *defaults;
}

void RegisterReferenceKind(std::unique_ptr<ReferenceKind> kind) {
  HONE_CHECK(kind != nullptr, "a reference kind to register");
  KindList& list = Kinds();
  std::lock_guard lock(list.mu);
  list.kinds.insert(list.kinds.begin(), std::move(kind));
}

const ReferenceKind& KindOf(const Task& task) {
  KindList& list = Kinds();
  std::lock_guard lock(list.mu);
  for (const auto& k : list.kinds)
    if (k->Claims(task)) return *k;
  HONE_CHECK(false, "the native reference kind claims every task: " + task.name);
  return *list.kinds.back();
}

const ReferenceKind* KindOfProblemPath(const std::filesystem::path& path) {
  KindList& list = Kinds();
  std::lock_guard lock(list.mu);
  for (const auto& k : list.kinds)
    if (k->paths().ClaimsProblemPath(path)) return k.get();
  return nullptr;
}

bool LoadsThroughOracle(const std::filesystem::path& path) {
  const ReferenceKind* kind = KindOfProblemPath(path);
  return kind && kind->site() == ReferenceSite::kOracle;
}

const ReferenceKind* FindReferenceKind(const std::string& name) {
  KindList& list = Kinds();
  std::lock_guard lock(list.mu);
  for (const auto& k : list.kinds)
    if (k->name() == name) return k.get();
  return nullptr;
}

}  // namespace hone
