// The CPU backend: candidates in C++ built by g++ (build/compiler_builder.h),
// run in hone-sandbox on host memory shared by memfd (process/shared_arena.h),
// checked against the worker's own host memory (run/trusted_store.h), with
// the machine's measured ceilings (measure/machine.h). Every hone has it:
// it is also the host backend that builds compat shims.
//
// Immutable once made; thread-safe as run/backend.h says. Set-up failures
// (no compiler, no sandbox program) are Status values from Open().
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "run/backend.h"
#include "run/backend_registry.h"

namespace hone {

class CpuBackend : public Backend {
 public:
  static BackendTraits Traits();
  // As hone runs it: g++ into setup.cache/builds, hone-sandbox found as
  // core/paths.h says, the ceilings measured once and cached.
  static Result<std::unique_ptr<Backend>> Open(const BackendSetup& setup);
  // From parts made by the caller (tests name the sandbox they built).
  CpuBackend(std::unique_ptr<Builder> builder, std::filesystem::path sandbox, MachineInfo machine);

  std::string oracle_device() const override { return "cpu"; }
  int64_t FreeMemory() const override;
  Result<std::unique_ptr<Arena>> CreateArena(size_t bytes) const override;
  Result<std::unique_ptr<TrustedStore>> CreateTrustedStore() const override;
  // perf_event counters on the sandbox's threads (MakeHostCountersProfiler).
  std::unique_ptr<Profiler> MakeProfiler() const override;
};

void RegisterCpuBackend(BackendRegistry& registry);

}  // namespace hone
