// GPU tests (ctest label "gpu"): the CUDA catalogue, the example suite's CUDA
// solutions and a timed evaluation, on the first GPU. Without a GPU every
// test is skipped with a message saying why.
#include "cuda/gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cuda/cuda_backend.h"
#include "integration/test_env.h"
#include "measure/profile_judge.h"
#include "report/verdict_text.h"
#include "support/builtin_tasks.h"
#include "task/task_loader.h"
#include "tools/cuda_tools.h"
#include "tools/sanitize.h"

namespace hone {
namespace {

using namespace hone::testing;

struct CudaEnv {
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
    EvaluatorEnv env = TestCpuEnv();
    setenv("HONE_SANDBOX_CUDA", (BinaryDir() / "hone-sandbox-cuda").c_str(), 1);
    RegisterCudaBackend(env.backends);
    Status st = env.backends.Open("cuda", BackendSetup{TestCache(), 0}).status();
    if (!st.ok()) {
      e->error = "CUDA set-up failed: " + st.message();
      return e;
    }
    e->evaluator = std::make_unique<Evaluator>(env);
    return e;
  }();
  return env;
}

#define REQUIRE_GPU_ENV()                                    \
  do {                                                       \
    if (!Env()->error.empty()) GTEST_SKIP() << Env()->error; \
  } while (0)

std::vector<Expectation> CudaCatalogue() {
  return LoadExpectations(SourceDir() / "tests/adversarial/cuda_expectations.txt");
}

Verdict Eval(const std::filesystem::path& task_dir, const std::filesystem::path& candidate,
             bool timed) {
  auto task = hone::testing::LoadBuiltInTask(task_dir);
  EXPECT_TRUE(task.ok()) << task.status().message();
  if (!task.ok()) return {};
  EvalOptions o;
  o.time = timed;
  o.timing.budget_seconds = 0.5;
  auto v = Env()->evaluator->Evaluate(*task, candidate, o);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : Verdict{};
}

// One evaluation of a catalogue entry: on the entry's task, timed when it says so (with a
// small budget: the hacks act, or are caught, within a few calls), with the static lint on or
// off.
Verdict EvalEntry(const Expectation& e, bool lint) {
  auto task = hone::testing::LoadBuiltInTask(ExpectationTask(SourceDir(), e));
  EXPECT_TRUE(task.ok()) << e.file << ": " << task.status().message();
  if (!task.ok()) return {};
  EvalOptions o;
  o.time = e.timed;
  o.timing.budget_seconds = 0.3;
  o.timing.warmup_seconds = 0.02;
  o.lint = lint;
  auto v = Env()->evaluator->Evaluate(*task, SourceDir() / "tests/adversarial/cuda" / e.file, o);
  EXPECT_TRUE(v.ok()) << e.file << ": " << v.status().message();
  return v.ok() ? *v : Verdict{};
}

// Prints "[tag] file: status: reason" and checks the verdict against the expected status and
// reason substring. A passed verdict on an entry with max_speedup must have been timed and be no
// faster than that: the hack was neutralised, not merely survived.
void ExpectVerdict(const char* tag, const Expectation& e, const Verdict& v,
                   const std::string& status, const std::string& reason) {
  std::cout << "[" << tag << "] " << e.file << ": " << StatusName(v.status) << ": "
            << v.reason.substr(0, 240) << "\n";
  EXPECT_EQ(StatusName(v.status), status) << "[" << tag << "] " << e.file << ": " << v.reason;
  EXPECT_TRUE(ReasonMatches(v.reason, reason))
      << "[" << tag << "] " << e.file << ": reason '" << v.reason << "' lacks '" << reason << "'";
  if (e.max_speedup > 0 && status == "passed" && v.status == VerdictStatus::kPassed) {
    std::cout << "[" << tag << "] " << e.file << ": speedup " << v.timing.speedup << "x (at most "
              << e.max_speedup << "x)\n";
    EXPECT_GT(v.timing.speedup, 0) << e.file << ": max_speedup needs a timed entry";
    EXPECT_LE(v.timing.speedup, e.max_speedup) << e.file << ": the hack made its timing faster";
  }
}

class CudaCatalogueTest : public ::testing::TestWithParam<Expectation> {};

TEST_P(CudaCatalogueTest, GetsItsVerdictAndTheWorkerSurvives) {
  REQUIRE_GPU_ENV();
  const Expectation& e = GetParam();
  Verdict v = EvalEntry(e, /*lint=*/true);
  ExpectVerdict("verdict", e, v, e.status, e.reason);
  if (!e.dynamic_status.empty()) {
    // An entry with a lint-off verdict is one the static lint catches: the verdict must come
    // from the lint, and the run-time checks alone must still give the dynamic verdict.
    EXPECT_TRUE(ReasonMatches(v.reason, "lint"))
        << e.file << ": expected a lint rejection, got '" << v.reason << "'";
    Verdict d = EvalEntry(e, /*lint=*/false);
    ExpectVerdict("verdict-dynamic", e, d, e.dynamic_status, e.dynamic_reason);
  }
  Verdict after = Eval(SourceDir() / "tests/integration/fixture_add",
                       SourceDir() / "tests/adversarial/cuda/correct.cu", false);
  EXPECT_EQ(after.status, VerdictStatus::kPassed) << "after " << e.file << ": " << after.reason;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, CudaCatalogueTest, ::testing::ValuesIn(CudaCatalogue()),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

// Needs no GPU: every candidate file has an expectation, and every expectation names a file
// and a task that exist.
TEST(CudaCatalogueFilesTest, ExpectationsCoverEveryCandidate) {
  auto list = CudaCatalogue();
  std::filesystem::path dir = SourceDir() / "tests/adversarial/cuda";
  size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() != ".cu") continue;
    ++files;
    bool listed = std::any_of(list.begin(), list.end(), [&](const Expectation& e) {
      return e.file == f.path().filename().string();
    });
    EXPECT_TRUE(listed) << f.path() << " has no expectation";
  }
  for (const auto& e : list) {
    EXPECT_TRUE(std::filesystem::exists(dir / e.file)) << "line " << e.line << ": " << e.file;
    EXPECT_TRUE(std::filesystem::exists(ExpectationTask(SourceDir(), e) / "task.toml"))
        << "line " << e.line << ": " << e.file << ": no task " << ExpectationTask(SourceDir(), e);
  }
  EXPECT_GE(files, 40u);
}

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
  REQUIRE_GPU_ENV();
  Verdict v = Eval(GetParam().task, GetParam().file, false);
  EXPECT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  EXPECT_GT(v.precision.bound, 0) << "no float64 precision check ran";
  std::cout << "[verdict] " << GetParam().file << ": " << StatusName(v.status) << "\n"
            << v.build.resources;
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaExampleTest, ::testing::ValuesIn(CudaSolutions()),
                         [](const auto& info) {
                           std::filesystem::path f = info.param.file;
                           return f.parent_path().parent_path().filename().string() + "_" +
                                  f.stem().string();
                         });

TEST(CudaTimingTest, FastGeluIsTimedWithDeviceState) {
  REQUIRE_GPU_ENV();
  std::filesystem::path task = SourceDir() / "tasks/examples/gelu";
  Verdict v = Eval(task, task / "solutions/fast.cu", true);
  ASSERT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  ASSERT_TRUE(v.timing.candidate_time.has_value());
  EXPECT_GT(v.timing.speedup, 1.0);
  EXPECT_GT(v.timing.sol_percent, 0);
  EXPECT_GT(v.timing.event_overhead_seconds, 0);
  ASSERT_TRUE(v.timing.device_state.has_value());
  EXPECT_GT(v.timing.device_state->sm_mhz_max, 0u);
  std::cout << "[timing] gelu fast " << v.timing.candidate_time->summary.median * 1e6 << " us, ref "
            << v.timing.reference_time->summary.median * 1e6 << " us, speedup " << v.timing.speedup
            << ", SOL " << v.timing.sol_percent << "%, rse "
            << v.timing.candidate_time->summary.rse * 100 << "%, clocks "
            << v.timing.device_state->sm_mhz_min << "-" << v.timing.device_state->sm_mhz_max
            << " MHz, throttle " << ThrottleReasonNames(v.timing.device_state->throttle_reasons)
            << "\n";
}

// compute-sanitizer (--sanitize) on the smallest case, after verification.
Verdict Sanitized(const std::filesystem::path& candidate) {
  auto task = hone::testing::LoadBuiltInTask(SourceDir() / "tests/integration/fixture_add");
  EXPECT_TRUE(task.ok()) << task.status().message();
  if (!task.ok()) return {};
  EvalOptions o;
  o.time = false;
  o.sanitize = true;
  auto v = Env()->evaluator->Evaluate(*task, candidate, o);
  EXPECT_TRUE(v.ok()) << v.status().message();
  if (!v.ok()) return {};
  std::printf("[sanitize] %s: %s: %s; %s (%.1f s)\n", candidate.filename().c_str(),
              std::string(StatusName(v->status)).c_str(), v->reason.c_str(),
              v->sanitizer ? DescribeSanitizer(*v->sanitizer).c_str() : "no report",
              v->sanitizer ? v->sanitizer->seconds : 0.0);
  return *v;
}

const Verdict::SanitizerTool* Tool(const Verdict& v, const std::string& name) {
  if (!v.sanitizer) return nullptr;
  for (const auto& t : v.sanitizer->tools)
    if (t.tool == name) return &t;
  return nullptr;
}

// An example task's solution, timed and profiled (run/profile_stage.h).
Verdict Profiled(const std::string& task_name, const std::string& solution) {
  std::filesystem::path dir = SourceDir() / "tasks/examples" / task_name;
  auto task = hone::testing::LoadBuiltInTask(dir);
  EXPECT_TRUE(task.ok()) << task.status().message();
  if (!task.ok()) return {};
  EvalOptions o;
  o.timing.budget_seconds = 0.5;
  o.metrics = true;
  auto v = Env()->evaluator->Evaluate(*task, dir / "solutions" / solution, o);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : Verdict{};
}

// The issue's own example: the naive softmax and layernorm leave the GPU
// idle for want of parallelism, the fast ones run near the memory ceiling.
TEST(CudaProfileTest, TellsTheNaiveFromTheFastSolutions) {
  REQUIRE_GPU_ENV();
  if (!FindCudaTool("ncu")) GTEST_SKIP() << "ncu (Nsight Compute) not installed";
  for (const char* task : {"softmax", "layernorm"}) {
    for (const char* solution : {"naive.cu", "fast.cu"}) {
      SCOPED_TRACE(std::string(task) + "/" + solution);
      Verdict v = Profiled(task, solution);
      ASSERT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
      ASSERT_TRUE(v.profile.has_value());
      ASSERT_EQ(v.profile->not_run, "");
      EXPECT_EQ(v.profile->tool.rfind("ncu ", 0), 0u) << v.profile->tool;
      ASSERT_FALSE(v.profile->kernels.empty());
      EXPECT_GT(v.profile->summary.at(metric::kDuration), 0);
      EXPECT_LT(v.profile->seconds, 60);
      const std::string& label = v.profile->diagnosis.label;
      if (std::string(solution) == "naive.cu")
        EXPECT_EQ(label.rfind("underutilised", 0), 0u) << DiagnosisText(*v.profile);
      else
        EXPECT_EQ(label, "near the memory ceiling") << DiagnosisText(*v.profile);
    }
  }
}

TEST(CudaSanitizeTest, ACorrectKernelIsCleanUnderEveryTool) {
  REQUIRE_GPU_ENV();
  if (!FindCudaTool("compute-sanitizer")) GTEST_SKIP() << "compute-sanitizer not installed";
  Verdict v = Sanitized(SourceDir() / "tests/adversarial/cuda/correct.cu");
  EXPECT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  ASSERT_TRUE(v.sanitizer.has_value());
  EXPECT_EQ(v.sanitizer->not_run, "");
  EXPECT_EQ(v.sanitizer->case_label, "N=1025");  // the smaller of the fixture's two
  ASSERT_EQ(v.sanitizer->tools.size(), 3u);
  for (const auto& t : v.sanitizer->tools) {
    EXPECT_EQ(t.errors, 0) << t.tool << ": " << t.first;
    EXPECT_EQ(t.failure, "") << t.tool;
  }
}

TEST(CudaSanitizeTest, AReadPastAnInputFailsUnderMemcheck) {
  REQUIRE_GPU_ENV();
  if (!FindCudaTool("compute-sanitizer")) GTEST_SKIP() << "compute-sanitizer not installed";
  Verdict v = Sanitized(SourceDir() / "tests/sanitize/read_past_input.cu");
  EXPECT_EQ(v.status, VerdictStatus::kRuntimeError) << v.reason;
  EXPECT_NE(v.reason.find("memcheck"), std::string::npos) << v.reason;
  const auto* memcheck = Tool(v, "memcheck");
  ASSERT_NE(memcheck, nullptr);
  EXPECT_GE(memcheck->errors, 1);
  EXPECT_NE(memcheck->first.find("read"), std::string::npos) << memcheck->first;
}

TEST(CudaSanitizeTest, ASharedMemoryRaceIsReportedNotFailed) {
  REQUIRE_GPU_ENV();
  if (!FindCudaTool("compute-sanitizer")) GTEST_SKIP() << "compute-sanitizer not installed";
  Verdict v = Sanitized(SourceDir() / "tests/sanitize/shared_race.cu");
  EXPECT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  const auto* racecheck = Tool(v, "racecheck");
  ASSERT_NE(racecheck, nullptr);
  EXPECT_GE(racecheck->errors, 1) << racecheck->failure;
}

// The worked example every CUDA prompt shows must itself pass.
TEST(CudaPromptExampleTest, CudaExamplePasses) {
  REQUIRE_GPU_ENV();
  Verdict v = Eval(SourceDir() / "tests/integration/fixture_affine",
                   SourceDir() / "prompts/example_cuda.cu", false);
  EXPECT_EQ(v.status, VerdictStatus::kPassed) << v.reason;
  std::printf("[verdict] prompts/example_cuda.cu: %s: %s\n",
              std::string(StatusName(v.status)).c_str(), v.reason.c_str());
}

}  // namespace
}  // namespace hone
