#include "run/backend_registry.h"

#include "core/wording.h"

namespace hone {
namespace {

bool Takes(const BackendKind& k, const Language& l) {
  return l.run.RunsOn(k.traits.tasks_as) && (!l.run.modelnew() || k.traits.compat);
}

// The backends that run `language`, for a message: "cpu or cuda".
std::string NamesFor(const BackendRegistry& r, const Language& l) {
  std::vector<std::string> names;
  for (const auto& k : r.kinds())
    if (Takes(k, l)) names.push_back(k.name);
  return names.empty() ? "none here" : OneOf(names);
}

Status UsableKind(const BackendKind& k) {
  if (k.unavailable.empty()) return Status::Ok();
  return Status::Unavailable(k.unavailable);
}

// No request: for a native language the first backend of its devices; for
// a ModelNew language a device backend whose device is here, else the
// host's (a kind without a probe).
Result<std::string> DefaultFor(const BackendRegistry& r, const Language& l,
                               const std::filesystem::path& candidate) {
  if (!l.run.modelnew()) {
    for (const std::string& device : l.run.devices)
      for (const auto& k : r.kinds())
        if (k.traits.tasks_as == device) {
          HONE_RETURN_IF_ERROR(UsableKind(k));
          return k.name;
        }
  } else {
    for (const auto& k : r.kinds())
      if (Takes(k, l) && k.unavailable.empty() && k.present && k.present()) return k.name;
    for (const auto& k : r.kinds())
      if (Takes(k, l) && k.unavailable.empty() && !k.present) return k.name;
    for (const auto& k : r.kinds())
      if (Takes(k, l) && !k.unavailable.empty()) return Status::Unavailable(k.unavailable);
  }
  return Status::Unavailable(candidate.string() + ": a " + l.label + " candidate runs on " +
                             OneOf(l.run.devices) + ", and no such device is here");
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

int DeviceCount(const BackendKind& kind) {
  if (!kind.unavailable.empty()) return 0;
  if (kind.count) return kind.count();
  return !kind.present || kind.present() ? 1 : 0;
}

const BackendKind* NumberedKind(const BackendRegistry& registry) {
  for (const auto& k : registry.kinds())
    if (k.traits.numbered_devices) return &k;
  return nullptr;
}

const BackendKind* KindForDevice(const BackendRegistry& registry, const std::string& device) {
  for (const auto& k : registry.kinds())
    if (k.traits.tasks_as == device) return &k;
  return nullptr;
}

std::vector<TaskDevice> TaskDevicesOf(const BackendRegistry& registry) {
  std::vector<TaskDevice> out;
  for (const auto& k : registry.kinds())
    if (KindForDevice(registry, k.traits.tasks_as) == &k)
      out.push_back({k.traits.tasks_as, k.traits.reference_file});
  return out;
}

Status CheckBackendIn(const BackendRegistry& registry, const std::string& name,
                      const std::string& where) {
  if (registry.Kind(name)) return Status::Ok();
  std::vector<std::string> names;
  for (const BackendKind& k : registry.kinds()) names.push_back(k.name);
  return Status::Invalid(where + ": expected " + OneOf(names) + ", got '" + name + "'");
}

Result<std::string> ResolveBackend(const BackendRegistry& registry, const Language& language,
                                   const std::filesystem::path& candidate,
                                   const std::string& requested) {
  if (requested.empty()) return DefaultFor(registry, language, candidate);
  const BackendKind* k = registry.Kind(requested);
  if (!k)
    return Status::Invalid("--backend: unknown backend '" + requested + "' (" +
                           NamesFor(registry, language) + " run " + candidate.string() + ")");
  if (!Takes(*k, language))
    return Status::Invalid("--backend " + requested + ": " + candidate.string() + " is a " +
                           language.label + " candidate, which runs on " +
                           NamesFor(registry, language));
  HONE_RETURN_IF_ERROR(UsableKind(*k));
  return requested;
}

}  // namespace hone
