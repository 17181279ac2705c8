#include "backends/testhost/testhost_backend.h"

#include "build/compiler_builder.h"
#include "process/shared_arena.h"
#include "run/memory_plan.h"
#include "run/profile_stage.h"

namespace hone::testing {
namespace {

BackendTraits TestHostTraits() {
  BackendTraits t;  // the host's checks: idle CPU time, no launches, no hold
  t.label = "test host";
  t.tasks_as = "cpu";  // C++ sources (lang/), a task's reference.cpp and its CPU shape cases
  t.compat = false;
  return t;
}

// g++ at -O1 for any x86-64: a builder of its own, so its builds are keyed
// apart from the CPU backend's.
CompilerOptions TestHostCompilerOptions() {
  CompilerOptions o = CpuCompilerOptions();
  o.backend = kTestHostBackend;
  o.flags = {"-std=c++20", "-O1", "-fopenmp", "-shared", "-fPIC", "-Wl,-z,defs"};
  return o;
}

class TestHostBackend : public Backend {
 public:
  static Result<std::unique_ptr<Backend>> Open(const BackendSetup& setup,
                                               const std::filesystem::path& sandbox,
                                               int neighbours) {
    BackendParts parts{kTestHostBackend, TestHostTraits(), nullptr, sandbox, {}};
    HONE_ASSIGN_OR_RETURN(
        parts.builder,
        CompilerBuilder::Create(CompileCache(setup.cache / "builds"), TestHostCompilerOptions()));
    HONE_ASSIGN_OR_RETURN(parts.machine, LoadOrMeasureMachine(setup.cache));
    return std::unique_ptr<Backend>(new TestHostBackend(std::move(parts), neighbours));
  }

  std::string oracle_device() const override { return "cpu"; }
  int64_t FreeMemory() const override { return AvailableHostMemory(); }
  Result<std::unique_ptr<Arena>> CreateArena(size_t bytes) const override {
    HONE_ASSIGN_OR_RETURN(auto a, SharedArena::Create(bytes));
    return std::unique_ptr<Arena>(std::move(a));
  }
  Result<std::unique_ptr<TrustedStore>> CreateTrustedStore() const override {
    return CreateHostTrustedStore();
  }
  std::unique_ptr<Profiler> MakeProfiler() const override { return MakeHostCountersProfiler(); }
  std::optional<DeviceNeighbours> Neighbours() const override {
    if (neighbours_ == 0) return std::nullopt;
    return DeviceNeighbours{true, neighbours_, int64_t{1} << 30};
  }

 private:
  TestHostBackend(BackendParts parts, int neighbours)
      : Backend(std::move(parts)), neighbours_(neighbours) {}
  const int neighbours_;
};

}  // namespace

void RegisterTestHostBackend(BackendRegistry& registry, std::filesystem::path sandbox,
                             int neighbours) {
  registry.Register({kTestHostBackend, TestHostTraits(), nullptr,
                     [sandbox, neighbours](const BackendSetup& setup) {
                       return TestHostBackend::Open(setup, sandbox, neighbours);
                     },
                     ""});
}

}  // namespace hone::testing
