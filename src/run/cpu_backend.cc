#include "run/cpu_backend.h"

#include "build/compiler_builder.h"
#include "core/paths.h"
#include "process/shared_arena.h"
#include "run/memory_plan.h"
#include "run/profile_stage.h"

namespace hone {

BackendTraits CpuBackend::Traits() {
  BackendTraits t;  // the defaults are the CPU's
  t.label = "CPU";
  t.tasks_as = "cpu";
  return t;
}

Result<std::unique_ptr<Backend>> CpuBackend::Open(const BackendSetup& setup) {
  HONE_ASSIGN_OR_RETURN(
      std::unique_ptr<CompilerBuilder> builder,
      CompilerBuilder::Create(CompileCache(setup.cache / "builds"), CpuCompilerOptions()));
  HONE_ASSIGN_OR_RETURN(std::filesystem::path sandbox, FindSandboxExecutable());
  HONE_ASSIGN_OR_RETURN(MachineInfo machine, LoadOrMeasureMachine(setup.cache));
  return std::unique_ptr<Backend>(
      new CpuBackend(std::move(builder), std::move(sandbox), std::move(machine)));
}

CpuBackend::CpuBackend(std::unique_ptr<Builder> builder, std::filesystem::path sandbox,
                       MachineInfo machine)
    : Backend({"cpu", Traits(), std::move(builder), std::move(sandbox), std::move(machine)}) {}

int64_t CpuBackend::FreeMemory() const { return AvailableHostMemory(); }

Result<std::unique_ptr<Arena>> CpuBackend::CreateArena(size_t bytes) const {
  HONE_ASSIGN_OR_RETURN(auto a, SharedArena::Create(bytes));
  return std::unique_ptr<Arena>(std::move(a));
}

Result<std::unique_ptr<TrustedStore>> CpuBackend::CreateTrustedStore() const {
  return CreateHostTrustedStore();
}

std::unique_ptr<Profiler> CpuBackend::MakeProfiler() const { return MakeHostCountersProfiler(); }

void RegisterCpuBackend(BackendRegistry& registry) {
  BackendKind cpu{"cpu", CpuBackend::Traits(), nullptr, CpuBackend::Open, ""};
  cpu.oracle_device = [](int) { return std::string("cpu"); };
  registry.Register(std::move(cpu));
}

}  // namespace hone
