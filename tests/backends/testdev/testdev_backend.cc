#include "backends/testdev/testdev_backend.h"

#include "backends/testdev/testdev_arena.h"
#include "backends/testdev/testdev_store.h"
#include "build/compiler_builder.h"
#include "run/memory_plan.h"
#include "run/profile_stage.h"

namespace hone::testing {
namespace {

BackendTraits TestDevTraits() {
  BackendTraits t;  // the host's per-call checks: idle CPU time, no launches, no hold
  t.label = "test device";
  t.device_noun = "test device";
  t.tasks_as = kTestDevBackend;
  t.reference_file = "reference.cpp";  // C++, as the CPU's
  t.compat = false;
  return t;
}

// g++ at -O1 for any x86-64, keyed apart from the CPU's builds.
CompilerOptions TestDevCompilerOptions() {
  CompilerOptions o = CpuCompilerOptions();
  o.backend = kTestDevBackend;
  o.flags = {"-std=c++20", "-O1", "-fopenmp", "-shared", "-fPIC", "-Wl,-z,defs"};
  return o;
}

// Its tool (the verdict's profile names it "testdev-counters"): the host's
// counters, since its sandbox is the CPU's, each profile counted.
class TestDevProfiler : public Profiler {
 public:
  explicit TestDevProfiler(std::shared_ptr<TestDevCounts> counts) : counts_(std::move(counts)) {}
  bool host_counters() const override { return true; }
  Status Profile(RunState& s, CandidateRunner& runner, const std::filesystem::path& library,
                 ProfileReport& report) override {
    HONE_RETURN_IF_ERROR(host_->Profile(s, runner, library, report));
    report.tool = "testdev-counters";
    ++counts_->profiles;
    return Status::Ok();
  }

 private:
  const std::shared_ptr<TestDevCounts> counts_;
  const std::unique_ptr<Profiler> host_ = MakeHostCountersProfiler();
};

class TestDevBackend : public Backend {
 public:
  static Result<std::unique_ptr<Backend>> Open(const BackendSetup& setup,
                                               const std::filesystem::path& sandbox,
                                               std::shared_ptr<TestDevCounts> counts) {
    BackendParts parts{kTestDevBackend, TestDevTraits(), nullptr, sandbox, {}};
    HONE_ASSIGN_OR_RETURN(
        parts.builder,
        CompilerBuilder::Create(CompileCache(setup.cache / "builds"), TestDevCompilerOptions()));
    HONE_ASSIGN_OR_RETURN(parts.machine, LoadOrMeasureMachine(setup.cache));
    return std::unique_ptr<Backend>(new TestDevBackend(std::move(parts), std::move(counts)));
  }

  std::string oracle_device() const override { return "cpu"; }
  int64_t FreeMemory() const override { return AvailableHostMemory(); }
  Result<std::unique_ptr<Arena>> CreateArena(size_t bytes) const override {
    HONE_ASSIGN_OR_RETURN(auto a, TestDevArena::Create(bytes, counts_));
    return std::unique_ptr<Arena>(std::move(a));
  }
  Result<std::unique_ptr<TrustedStore>> CreateTrustedStore() const override {
    return CreateTestDevStore(counts_);
  }
  std::unique_ptr<Profiler> MakeProfiler() const override {
    return std::make_unique<TestDevProfiler>(counts_);
  }

 private:
  TestDevBackend(BackendParts parts, std::shared_ptr<TestDevCounts> counts)
      : Backend(std::move(parts)), counts_(std::move(counts)) {}
  const std::shared_ptr<TestDevCounts> counts_;
};

}  // namespace

void RegisterTestDevBackend(BackendRegistry& registry, std::filesystem::path sandbox,
                            std::shared_ptr<TestDevCounts> counts) {
  BackendKind kind;
  kind.name = kTestDevBackend;
  kind.traits = TestDevTraits();
  kind.make = [sandbox, counts](const BackendSetup& setup) {
    return TestDevBackend::Open(setup, sandbox, counts);
  };
  registry.Register(std::move(kind));
}

Status RunCppOnTestDev(LanguageRegistry& languages) {
  const Language* cpp = languages.Find("cpp");
  if (!cpp) return Status::Invalid("the languages have no C++ to run on the test device");
  Language on_both = *cpp;
  if (!on_both.run.RunsOn(kTestDevBackend)) on_both.run.devices.push_back(kTestDevBackend);
  languages.Register(std::move(on_both));
  return Status::Ok();
}

}  // namespace hone::testing
