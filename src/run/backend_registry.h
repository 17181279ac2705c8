// The backends this hone knows and those it has made, and the one rule that
// decides which backend a candidate runs on (ResolveBackend).
//
// A backend's folder registers a BackendKind: its name, its traits, a quick
// probe for its device and a factory. Nothing registers itself at static
// initialisation: the CLI's context set-up calls each folder's Register...
// function (the CUDA one only when the build has the CUDA backend), and
// tests register what they need, fakes included. Open() makes a kind's
// backend once, on one device; EvaluatorEnv carries the registry to the
// stages, which ask it for the opened backend by name.
//
// A registry is a value: copies share the opened backends (immutable,
// run/backend.h). Not thread-safe while kinds are registered or opened;
// after that, reading it from several threads is safe. Unknown names and
// backends that cannot be made here are Status values.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/backend_names.h"
#include "lang/language.h"
#include "run/backend.h"
#include "task/task_loader.h"

namespace hone {

// What a backend is made from.
struct BackendSetup {
  std::filesystem::path cache;  // $HONE_CACHE: its builds, its measured ceilings
  int device = 0;               // which device of its kind
};

struct BackendKind {
  std::string name;
  BackendTraits traits;
  // Whether a device it runs on is here now: a quick probe, no set-up.
  // Null: always (the CPU).
  std::function<bool()> present;
  // Makes it on setup.device; a Status names what is missing (no driver, no
  // device, no sandbox program).
  std::function<Result<std::unique_ptr<Backend>>(const BackendSetup&)> make;
  // Non-empty for a backend this hone was built without: why it cannot be
  // made. Such a kind is still known, so that its candidates get that
  // reason rather than "unknown".
  std::string unavailable;
  // How many of its devices are here, for a kind whose devices are numbered
  // (BackendTraits::numbered_devices: `--devices all`). Null: see DeviceCount.
  std::function<int()> count;
  // Where the PyTorch oracle runs a task for its device `device`
  // (Backend::oracle_device of one made), known before one is made: the
  // oracle then starts while the backend sets itself up (a fresh machine's
  // ceilings are measured then). Null: known once one is made.
  std::function<std::string(int device)> oracle_device;
};

class BackendRegistry {
 public:
  // A kind of the same name is replaced.
  void Register(BackendKind kind);
  const BackendKind* Kind(const std::string& name) const;
  const std::vector<BackendKind>& kinds() const { return kinds_; }

  // The backend `name` on setup.device, made on the first call and kept.
  Result<const Backend*> Open(const std::string& name, const BackendSetup& setup);
  // A backend made by the caller (tests), kept under its name.
  void Add(std::shared_ptr<const Backend> backend);
  // The opened backend of that name, or null.
  const Backend* Find(const std::string& name) const;
  // Find, or Status::Unavailable saying why it is not here.
  Result<const Backend*> Get(const std::string& name) const;

 private:
  std::vector<BackendKind> kinds_;
  std::map<std::string, std::shared_ptr<const Backend>> open_;
};

// How many devices of `kind` are here: count() where it has one, else one
// when its device is present (a kind without a probe: always); 0 for a kind
// this hone was built without.
int DeviceCount(const BackendKind& kind);

// The first registered kind whose devices are numbered (the GPUs'), or null:
// the backend that `--devices` means when no backend is named, and that a
// worker takes when such devices are here.
const BackendKind* NumberedKind(const BackendRegistry& registry);

// The first registered kind that runs the tasks written for `device` (its
// tasks_as), or null.
const BackendKind* KindForDevice(const BackendRegistry& registry, const std::string& device);

// The devices a native task may be written for (its cases' `backends`, its
// references), in registration order, each once: every kind's tasks_as, with
// the file its reference has by default (task/task_loader.h).
std::vector<TaskDevice> TaskDevicesOf(const BackendRegistry& registry);

// Status::Invalid "WHERE: expected cpu or cuda, got 'NAME'" unless `name` is a
// kind of `registry` (built with it or not).
Status CheckBackendIn(const BackendRegistry& registry, const std::string& name,
                      const std::string& where);

// The backend a candidate of `language` runs on, the one place this is
// decided: `requested` when that backend runs the language's devices
// (BackendTraits::tasks_as in LanguageRun::devices; for a ModelNew language,
// one that runs ModelNew files); else for a native language the first
// registered backend of one of its devices, and for a ModelNew language
// one whose device is present (present() true), else the host's.
// `candidate` names the file in messages. Status::Invalid for a request
// that contradicts the language or names no backend; Status::Unavailable
// for a backend this hone was built without or a device that is not here.
Result<std::string> ResolveBackend(const BackendRegistry& registry, const Language& language,
                                   const std::filesystem::path& candidate,
                                   const std::string& requested = "");

}  // namespace hone
