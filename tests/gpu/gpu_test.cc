// GPU tests (ctest label "gpu"): the CUDA catalogue, the example suite's CUDA
// solutions and a timed evaluation, on the first GPU. Without a GPU every
// test is skipped with a message saying why.
#include "cuda/gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cuda/cuda_env.h"
#include "integration/test_env.h"
#include "task/task_loader.h"

namespace hone {
namespace {

using namespace hone::testing;

struct CudaEnv {
  std::unique_ptr<CompilerBuilder> cpu_builder;
  std::unique_ptr<Builder> cuda_builder;
  std::unique_ptr<Evaluator> evaluator;
  std::string error;
};

CudaEnv* Env() {
  static CudaEnv* env = [] {
    auto* e = new CudaEnv();
    if (GpuCount() == 0) {
      e->error = "no CUDA GPU on this machine: GPU tests skipped (run scripts/gpu-check on one)";
      return e;
    }
    std::filesystem::path cache = TestCache();
    e->cpu_builder =
        std::move(CompilerBuilder::Create(CompileCache(cache / "builds"), CpuCompilerOptions()))
            .value();
    EvaluatorEnv env;
    env.builder = e->cpu_builder.get();
    env.sandbox_executable = BinaryDir() / "hone-sandbox";
    env.scratch_root = cache / "scratch";
    setenv("HONE_SANDBOX_CUDA", (BinaryDir() / "hone-sandbox-cuda").c_str(), 1);
    Status st = SetUpCudaEnv(0, cache, env, &e->cuda_builder);
    if (!st.ok()) {
      e->error = "CUDA set-up failed: " + st.message();
      return e;
    }
    e->evaluator = std::make_unique<Evaluator>(env);
    return e;
  }();
  return env;
}

#define REQUIRE_GPU()                                        \
  do {                                                       \
    if (!Env()->error.empty()) GTEST_SKIP() << Env()->error; \
  } while (0)

std::vector<Expectation> CudaCatalogue() {
  return LoadExpectations(SourceDir() / "tests/adversarial/cuda_expectations.txt");
}

Verdict Eval(const std::filesystem::path& task_dir, const std::filesystem::path& candidate,
             bool timed) {
  auto task = LoadNativeTask(task_dir);
  EXPECT_TRUE(task.ok()) << task.status().message();
  if (!task.ok()) return {};
  EvalOptions o;
  o.time = timed;
  o.timing.budget_seconds = 0.5;
  auto v = Env()->evaluator->Evaluate(*task, candidate, o);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : Verdict{};
}

class CudaCatalogueTest : public ::testing::TestWithParam<Expectation> {};

TEST_P(CudaCatalogueTest, GetsItsVerdictAndTheWorkerSurvives) {
  REQUIRE_GPU();
  const Expectation& e = GetParam();
  std::filesystem::path fixture = SourceDir() / "tests/integration/fixture_add";
  std::filesystem::path dir = SourceDir() / "tests/adversarial/cuda";
  Verdict v = Eval(fixture, dir / e.file, e.timed);
  EXPECT_EQ(StatusName(v.status), e.status) << e.file << ": " << v.reason;
  EXPECT_TRUE(ReasonMatches(v.reason, e.reason))
      << e.file << ": reason '" << v.reason << "' lacks '" << e.reason << "'";
  std::cout << "[verdict] " << e.file << ": " << StatusName(v.status) << ": "
            << v.reason.substr(0, 240) << "\n";
  Verdict after = Eval(fixture, dir / "correct.cu", false);
  EXPECT_EQ(after.status, VerdictStatus::kPassed) << "after " << e.file << ": " << after.reason;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, CudaCatalogueTest, ::testing::ValuesIn(CudaCatalogue()),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

struct Solution {
  std::string task, file;
};
void PrintTo(const Solution& s, std::ostream* os) { *os << s.file; }

std::vector<Solution> CudaSolutions() {
  std::vector<Solution> out;
  for (const auto& t : std::filesystem::directory_iterator(SourceDir() / "tasks/examples")) {
    if (!IsNativeTaskDir(t.path())) continue;
    for (const auto& s : std::filesystem::directory_iterator(t.path() / "solutions"))
      if (s.path().extension() == ".cu") out.push_back({t.path().string(), s.path().string()});
  }
  std::sort(out.begin(), out.end(),
            [](const Solution& a, const Solution& b) { return a.file < b.file; });
  return out;
}

class CudaExampleTest : public ::testing::TestWithParam<Solution> {};

TEST_P(CudaExampleTest, Passes) {
  REQUIRE_GPU();
  Verdict v = Eval(GetParam().task, GetParam().file, false);
  EXPECT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  EXPECT_GT(v.precision_bound, 0) << "no float64 precision check ran";
  std::cout << "[verdict] " << GetParam().file << ": " << StatusName(v.status) << "\n"
            << v.build_resources;
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaExampleTest, ::testing::ValuesIn(CudaSolutions()),
                         [](const auto& info) {
                           std::filesystem::path f = info.param.file;
                           return f.parent_path().parent_path().filename().string() + "_" +
                                  f.stem().string();
                         });

TEST(CudaTimingTest, FastGeluIsTimedWithDeviceState) {
  REQUIRE_GPU();
  std::filesystem::path task = SourceDir() / "tasks/examples/gelu";
  Verdict v = Eval(task, task / "solutions/fast.cu", true);
  ASSERT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  ASSERT_TRUE(v.candidate_time.has_value());
  EXPECT_GT(v.speedup, 1.0);
  EXPECT_GT(v.sol_percent, 0);
  EXPECT_GT(v.event_overhead_seconds, 0);
  ASSERT_TRUE(v.device_state.has_value());
  EXPECT_GT(v.device_state->sm_mhz_max, 0u);
  std::cout << "[timing] gelu fast " << v.candidate_time->summary.median * 1e6 << " us, ref "
            << v.reference_time->summary.median * 1e6 << " us, speedup " << v.speedup << ", SOL "
            << v.sol_percent << "%, rse " << v.candidate_time->summary.rse * 100 << "%, clocks "
            << v.device_state->sm_mhz_min << "-" << v.device_state->sm_mhz_max << " MHz, throttle "
            << ThrottleReasonNames(v.device_state->throttle_reasons) << "\n";
}

// The worked example every CUDA prompt shows must itself pass.
TEST(CudaPromptExampleTest, CudaExamplePasses) {
  REQUIRE_GPU();
  Verdict v = Eval(SourceDir() / "tests/integration/fixture_affine",
                   SourceDir() / "prompts/example_cuda.cu", false);
  EXPECT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  std::printf("[verdict] prompts/example_cuda.cu: %s: %s\n",
              std::string(StatusName(v.status)).c_str(), v.reason.c_str());
}

}  // namespace
}  // namespace hone
