#include "run/backend_registry.h"

#include "task/task.h"

namespace hone {
namespace {

// The backends that run compat candidates, for a message: "cpu or cuda".
std::string CompatNames(const BackendRegistry& r) {
  std::vector<std::string> names;
  for (const auto& k : r.kinds())
    if (k.traits.compat) names.push_back(k.name);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

Status UsableKind(const BackendKind& k) {
  if (k.unavailable.empty()) return Status::Ok();
  return Status::Unavailable(k.unavailable);
}

// A compat candidate with no request: a device backend whose device is
// here, else the host (a kind without a probe).
Result<std::string> CompatDefault(const BackendRegistry& r) {
  for (const auto& k : r.kinds())
    if (k.traits.compat && k.unavailable.empty() && k.present && k.present()) return k.name;
  for (const auto& k : r.kinds())
    if (k.traits.compat && k.unavailable.empty() && !k.present) return k.name;
  return Status::Unavailable("no backend here runs ModelNew (.py) candidates");
}

Result<std::string> ResolveCompat(const BackendRegistry& r, const std::string& requested) {
  if (requested.empty()) return CompatDefault(r);
  const BackendKind* k = r.Kind(requested);
  if (!k || !k->traits.compat)
    return Status::Invalid("--backend: unknown backend '" + requested + "' (" + CompatNames(r) +
                           ")");
  HONE_RETURN_IF_ERROR(UsableKind(*k));
  return requested;
}

}  // namespace

void BackendRegistry::Register(BackendKind kind) {
  for (auto& k : kinds_)
    if (k.name == kind.name) {
      k = std::move(kind);
      return;
    }
  kinds_.push_back(std::move(kind));
}

const BackendKind* BackendRegistry::Kind(const std::string& name) const {
  for (const auto& k : kinds_)
    if (k.name == name) return &k;
  return nullptr;
}

Result<const Backend*> BackendRegistry::Open(const std::string& name, const BackendSetup& setup) {
  if (const Backend* b = Find(name)) return b;
  const BackendKind* k = Kind(name);
  if (!k) return Status::Invalid("unknown backend '" + name + "'");
  HONE_RETURN_IF_ERROR(UsableKind(*k));
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> made, k->make(setup));
  std::shared_ptr<const Backend> shared = std::move(made);
  open_[name] = shared;
  return shared.get();
}

void BackendRegistry::Add(std::shared_ptr<const Backend> backend) {
  std::string name = backend->name();
  open_[name] = std::move(backend);
}

const Backend* BackendRegistry::Find(const std::string& name) const {
  auto it = open_.find(name);
  return it == open_.end() ? nullptr : it->second.get();
}

Result<const Backend*> BackendRegistry::Get(const std::string& name) const {
  if (const Backend* b = Find(name)) return b;
  const BackendKind* k = Kind(name);
  if (k && !k->unavailable.empty()) return Status::Unavailable(k->unavailable);
  return Status::Unavailable(
      "the " + name + " backend is not available here" +
      (k && k->present ? " (no " + k->traits.label + " device, or it was not set up)" : ""));
}

Result<std::string> ResolveBackend(const BackendRegistry& registry,
                                   const std::filesystem::path& candidate,
                                   const std::string& requested) {
  std::string language = CandidateKind(candidate);
  if (language == "compat") return ResolveCompat(registry, requested);
  if (language.empty()) language = "cpu";  // its compiler says what it makes of it
  const BackendKind* own = nullptr;
  for (const auto& k : registry.kinds())
    if (k.traits.flavour == language) {
      own = &k;
      break;
    }
  if (!own)
    return Status::Unavailable(candidate.string() + ": no backend here builds " + language +
                               " candidates");
  const BackendKind* chosen = own;
  if (!requested.empty() && requested != own->name) {
    chosen = registry.Kind(requested);
    if (!chosen || chosen->traits.flavour != language)
      return Status::Invalid("--backend " + requested + ": " + candidate.string() + " is a " +
                             own->name + " candidate (its extension decides)");
  }
  HONE_RETURN_IF_ERROR(UsableKind(*chosen));
  return chosen->name;
}

}  // namespace hone
