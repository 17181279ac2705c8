// A backend: everything that sets apart the candidates of one kind of
// device (the CPU, a CUDA GPU), as one object the evaluation's stages ask.
// Its builder and sandbox program, its machine's ceilings and free memory,
// the arenas and the trusted store it makes, and its traits: which per-call
// checks apply, whether timed calls are held, whether compute-sanitizer runs
// its candidates; and the profiler that measures their counters. Which languages run on it is the
// languages' to say (lang/language.h: the devices each runs on, as tasks_as names them).
//
// Adding a backend is adding a folder with one Backend subclass and one
// BackendKind registered with the BackendRegistry (run/backend_registry.h);
// no stage names a backend. The stages keep the checks themselves
// (run/candidate_checks.h): a backend says which apply, as values.
//
// A Backend is made once per process for one device and never changes
// after: its const methods may be called from any thread (its builder is
// thread-safe, build/builder.h). Failures are values: a factory that
// cannot allocate returns a Status; FreeMemory() returns 0 when unknown.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "build/builder.h"
#include "core/backend_names.h"
#include "measure/device_sharing.h"
#include "measure/device_state.h"
#include "measure/machine.h"
#include "process/arena.h"
#include "process/sandbox_config.h"
#include "run/trusted_store.h"

namespace hone {

class Profiler;  // run/profile_stage.h

// What sets one backend's candidates apart, as values the stages read. Fixed
// per kind of backend (a BackendKind carries the same values before one is
// made).
struct BackendTraits {
  std::string label = "CPU";  // for messages: "runs on the CPU"
  // What one of its devices is called in messages about machines and
  // workers: "this worker has no GPU".
  std::string device_noun = "CPU";
  // Its devices are numbered and take one evaluation at a time each (GPUs):
  // --device N and --devices pick them, and a lane or a worker on one is
  // named after it ("cuda:1"). Without, its one device takes several
  // evaluations at once (--lanes N: "cpu#2").
  bool numbered_devices = false;
  // The device a task's reference and shape cases are written for: task.toml's
  // `backends = [...]`, reference.cpp ("cpu") or reference.cu ("cuda"); and
  // the device a language names to run on it (LanguageRun::devices). A backend
  // that runs another's sources on the same device shares its name.
  std::string tasks_as = kHostBackend;
  // The file a native task's reference for that device has when task.toml
  // names none (task/task_loader.h: the host's is `reference`, another
  // device's `<tasks_as>_reference`).
  std::string reference_file = "reference.cpp";
  // Arenas and the trusted store are device memory: every process holds a
  // device context (run/memory_plan.h), and memory the oracle keeps cached
  // is asked back before a plan gives up.
  bool device_memory = false;
  // Per call: the candidate launched its own kernels, on the one stream it
  // was given, and the device is idle after it (CandidateChecks::CheckGpuCall);
  // the build's kernel names go to the sandbox.
  bool launch_tracking = false;
  // CPU time the sandbox spends between calls is work that escaped them
  // (CandidateChecks::CheckNoWorkAfterReturn). Off where a runtime's own
  // threads work between calls.
  bool idle_cpu_check = true;
  // Timed calls are queued behind a hold kernel (run/timing_stage.h's HoldTally).
  bool held_calls = false;
  // Its sandbox times a call with a pair of device events, whose own
  // overhead each verdict records (Verdict::Timing::event_timed).
  bool event_timing = false;
  // RLIMIT_AS on its sandboxes; off where a driver maps far more address
  // space than it uses.
  bool limit_address_space = true;
  // RLIMIT_NOFILE of its native sandboxes (a compat sandbox's Python gets
  // more); a driver may hold several descriptors per visible device.
  int open_files = 64;
  bool sanitizer = false;  // compute-sanitizer can run its candidates (tools/sanitize.h)
  bool compat = true;      // it runs KernelBench ModelNew files (.py) through a shim
};

// What every backend has, as values fixed when it is made.
struct BackendParts {
  std::string name;  // "cpu", "cuda": the name in options, verdicts and the store
  BackendTraits traits;
  std::unique_ptr<Builder> builder;  // builds its candidates and a native task's reference
  std::filesystem::path sandbox;     // the sandbox program its candidates run in
  // Identity and measured ceilings (speed of light, the cache flush's size).
  MachineInfo machine;
};

class Backend {
 public:
  explicit Backend(BackendParts parts) : parts_(std::move(parts)) {}
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const std::string& name() const { return parts_.name; }
  const BackendTraits& traits() const { return parts_.traits; }
  Builder& builder() const { return *parts_.builder; }
  const std::filesystem::path& sandbox_executable() const { return parts_.sandbox; }
  const MachineInfo& machine() const { return parts_.machine; }

  // Where the PyTorch oracle runs a task for it: "cpu", "cuda:0".
  virtual std::string oracle_device() const = 0;
  // Memory its arenas and stores can take now, bytes (the memory plan); 0:
  // unknown, the plan takes the largest settings.
  virtual int64_t FreeMemory() const = 0;
  // Memory shared with one sandbox, and the worker's private tensors for
  // arenas of this backend.
  virtual Result<std::unique_ptr<Arena>> CreateArena(size_t bytes) const = 0;
  virtual Result<std::unique_ptr<TrustedStore>> CreateTrustedStore() const = 0;
  // Clocks, temperature and power now, sampled at every timed call; nothing
  // where the backend has no device to read.
  virtual std::optional<DeviceSample> SampleDevice() const { return std::nullopt; }
  // Whether the device is shared (measure/device_sharing.h): the other
  // processes on it now, and one probe call in the worker's own context,
  // made beside the candidate's timed calls. Nothing where the backend has
  // no device others could share (the CPU's contention is judged by the
  // sandbox's CPU time instead).
  virtual std::optional<DeviceNeighbours> Neighbours() const { return std::nullopt; }
  virtual std::optional<SharingProbe> ProbeSharing() const { return std::nullopt; }
  // What measures a passing candidate's counters (run/profile_stage.h), made
  // for one evaluation; null where the backend has none (the verdict's
  // profile then says so).
  virtual std::unique_ptr<Profiler> MakeProfiler() const;
  // What every sandbox this backend starts needs of its device (the CUDA
  // backend: CUDA MPS's client variables in SandboxConfig::device_env).
  // BaseConfig calls it; the default adds nothing.
  virtual void ConfigureSandbox(SandboxConfig&) const {}

 private:
  BackendParts parts_;
};

}  // namespace hone
