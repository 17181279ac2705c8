// CUDA MPS's client variables reach every sandbox (cuda/cuda_mps.h,
// SandboxConfig::device_env): a candidate joins the MPS server its worker
// joined, compat or not.
#include "cuda/cuda_mps.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "process/sandbox_spawn.h"

namespace hone {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST(CudaMpsTest, TheClientVariablesAreTakenAndNothingElse) {
  const char* environment[] = {"CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe", "CUDA_VISIBLE_DEVICES=1",
                               "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50",  "HOME=/root",
                               "XCUDA_MPS_PIPE_DIRECTORY=/elsewhere",   nullptr};
  EXPECT_EQ(CudaMpsClientEnvironment(environment),
            (std::vector<std::string>{"CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe",
                                      "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50"}));
  EXPECT_TRUE(CudaMpsClientEnvironment(nullptr).empty());
}

TEST(CudaMpsTest, EverySandboxGetsTheDevicesVariablesCompatOrNot) {
  SandboxConfig c;
  c.device_env = {"CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe"};
  auto native = SandboxEnvironment(c, "/tmp/scratch");
  EXPECT_TRUE(Has(native, "CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe"));
  EXPECT_TRUE(Has(native, "HOME=/tmp/scratch"));

  c.compat = true;
  c.extra_env = {"PYTHONPATH=/x", "CUDA_MPS_PIPE_DIRECTORY=/from/compat"};
  auto compat = SandboxEnvironment(c, "/tmp/scratch");
  EXPECT_TRUE(Has(compat, "PYTHONPATH=/x"));
  // The device's own setting wins: it is where the worker's MPS daemon is.
  EXPECT_TRUE(Has(compat, "CUDA_MPS_PIPE_DIRECTORY=/tmp/mps/pipe"));
  EXPECT_FALSE(Has(compat, "CUDA_MPS_PIPE_DIRECTORY=/from/compat"));

  SandboxConfig plain;
  for (const auto& e : SandboxEnvironment(plain, "/tmp/scratch"))
    EXPECT_NE(e.rfind("CUDA_MPS_", 0), 0u) << e;
}

}  // namespace
}  // namespace hone
