// The sandbox settings every candidate of a backend gets (BaseConfig): the
// size of the cache the timing flush evicts, the device's own variables.
#include "run/sandbox_launcher.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

class FakeBackend : public Backend {
 public:
  FakeBackend(size_t llc_bytes, bool device_memory) : Backend(Parts(llc_bytes, device_memory)) {}
  std::string oracle_device() const override { return "cpu"; }
  int64_t FreeMemory() const override { return 0; }
  Result<std::unique_ptr<Arena>> CreateArena(size_t) const override {
    return Status::Unavailable("no arenas here");
  }
  Result<std::unique_ptr<TrustedStore>> CreateTrustedStore() const override {
    return Status::Unavailable("no stores here");
  }
  void ConfigureSandbox(SandboxConfig& config) const override {
    config.device_env = {"FAKE_DEVICE_SERVER=/run/fake"};
  }

 private:
  static BackendParts Parts(size_t llc_bytes, bool device_memory) {
    BackendParts p;
    p.name = "fake";
    p.traits.device_memory = device_memory;
    p.machine.llc_bytes = llc_bytes;
    return p;
  }
};

size_t FlushedCache(size_t llc_bytes, bool device_memory, FlushMode flush = FlushMode::kLlc) {
  EvaluatorEnv env;
  EvalOptions opt;
  opt.time = true;
  opt.flush = flush;
  return BaseConfig(env, FakeBackend(llc_bytes, device_memory), opt).llc_bytes;
}

// A 2-core virtual machine reported its host's whole L3 (508 MiB), and each
// timed call wrote 1 GiB: the host flush evicts at most 128 MiB.
TEST(SandboxLauncherTest, TheHostFlushEvictsAtMost128MiB) {
  constexpr size_t kMiB = size_t{1} << 20;
  EXPECT_EQ(FlushedCache(508 * kMiB, false), 128 * kMiB);
  EXPECT_EQ(FlushedCache(32 * kMiB, false), 32 * kMiB);
  EXPECT_EQ(FlushedCache(508 * kMiB, true), 508 * kMiB) << "a device's L2 is flushed whole";
  EXPECT_EQ(FlushedCache(32 * kMiB, false, FlushMode::kLines), 0u);
}

// What a device's driver needs of every sandbox (CUDA MPS's pipe directory,
// say) comes from its backend.
TEST(SandboxLauncherTest, TheBackendConfiguresEverySandbox) {
  EvaluatorEnv env;
  SandboxConfig c = BaseConfig(env, FakeBackend(0, true), EvalOptions{});
  EXPECT_EQ(c.device_env, std::vector<std::string>{"FAKE_DEVICE_SERVER=/run/fake"});
}

}  // namespace
}  // namespace hone
