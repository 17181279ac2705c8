// What one `hone worker --backend cpu --store` makes of each shape of job:
// a named native task, a named PyTorch problem with a KernelBench ModelNew
// candidate, a PyTorch problem sent as source with a native candidate, and
// jobs the worker cannot evaluate (a problem it does not have, a CUDA
// candidate, a config it cannot honour), which are infra errors, never
// verdicts. The verdicts are then read back from the run store by `hone
// report` and `hone export`. The PyTorch jobs need python3 with torch and
// are left out, saying so, without it; the test skips without redis-server.
#include <nlohmann/json.hpp>
#include <sstream>

#include "integration/test_env.h"
#include "serve/redis_job_queue.h"
#include "support/redis_server.h"

namespace hone {
namespace {

using json = nlohmann::json;
using testing::HaveTorch;
using testing::RunHone;
using testing::SourceDir;

struct Case {
  EvalJob job;
  std::string status, error_substring;
};

EvalJob MakeJob(const std::string& id, const std::string& problem, const std::string& kind,
                const fs::path& candidate) {
  EvalJob j;
  j.id = id;
  j.problem_name = problem;
  j.candidate_kind = kind;
  // A line of its own: the compile cache is keyed by content and keeps the
  // first build's file name in its log (serve_workers_test.cc says more).
  j.candidate_code =
      *ReadFile(candidate) + (kind == "modelnew" ? "\n# " : "\n// ") + "served by a worker\n";
  return j;
}

std::vector<Case> Cases(bool torch) {
  fs::path adversarial = SourceDir() / "tests/adversarial/cpu";
  fs::path pytorch = SourceDir() / "tasks/pytorch";
  std::vector<Case> c;
  c.push_back({MakeJob("native", "fixture_add", "cpp", adversarial / "correct.cpp"), "passed", ""});
  c.push_back({MakeJob("missing", "no_such_task", "cpp", adversarial / "correct.cpp"),
               "infra_error", "no_such_task"});
  c.push_back({MakeJob("cuda", "fixture_add", "cuda", adversarial / "correct.cpp"), "infra_error",
               "no GPU"});
  // Wrong as written (SCALE 3), right as its declared variant SCALE=2: the
  // service evaluates through the entry `hone eval` uses, tunables included.
  Case tuned{MakeJob("tuned", "fixture_add", "cpp", adversarial / "correct.cpp"), "passed", ""};
  tuned.job.candidate_code =
      "// hone: tune SCALE in {3, 2}\n#ifndef SCALE\n#define SCALE 3\n#endif\n"
      "#include <hone/kernel.h>\n"
      "HONE_EXPORT int hone_forward(const hone_args* args) {\n"
      "  const float* a = static_cast<const float*>(args->inputs[0].data);\n"
      "  const float* b = static_cast<const float*>(args->inputs[1].data);\n"
      "  float* out = static_cast<float*>(args->outputs[0].data);\n"
      "  if (args->inputs[0].dtype != HONE_F32) return 1;\n"
      "  for (int64_t i = 0, n = hone_numel(&args->outputs[0]); i < n; ++i)\n"
      "    out[i] = a[i] + SCALE * b[i];\n"
      "  return 0;\n}\n";
  c.push_back(tuned);
  Case bad{MakeJob("bad-allow", "fixture_add", "cpp", adversarial / "correct.cpp"), "infra_error",
           "no_such_rule"};
  bad.job.config["allow"] = "no_such_rule";
  c.push_back(bad);
  if (!torch) return c;
  Case modelnew{
      MakeJob("modelnew", "row_sum", "modelnew", pytorch / "candidates/row_sum/compat_torch.py"),
      "passed", ""};
  modelnew.job.config["allow"] = "library";  // plain torch calls are the point here
  modelnew.job.config["backend"] = "cpu";
  c.push_back(modelnew);
  Case sent{MakeJob("problem-sent", "", "cpp", pytorch / "candidates/row_sum/right.cpp"), "passed",
            ""};
  sent.job.problem_code = *ReadFile(pytorch / "row_sum.py");
  c.push_back(sent);

  // Problems in the field's formats, as `hone eval` reads them: a
  // FlashInfer-Trace definition with a solution in its own JSON, one
  // workload named by its uuid's prefix; a robust-kbench task's forward()
  // module on one configuration. A problem of several parts needs one named.
  fs::path fi = SourceDir() / "tests/formats/flashinfer/solutions/hone/rmsnorm";
  Case solution{MakeJob("flashinfer", "flashinfer/definitions/rmsnorm/rmsnorm_h64", kSolutionKind,
                        fi / "rmsnorm_h64_python.json"),
                "passed", ""};
  solution.job.candidate_code = *ReadFile(fi / "rmsnorm_h64_python.json");
  solution.job.config["part"] = "19ee3850";
  c.push_back(solution);
  Case unnamed = solution;
  unnamed.job.id = "flashinfer-no-part";
  unnamed.job.config.erase("part");
  unnamed.status = "infra_error";
  unnamed.error_substring = "config.part: the problem has 3 parts; name one";
  c.push_back(unnamed);
  Case robust{
      MakeJob("robust-kbench", "rms_scale", "cpp",
              SourceDir() / "tests/formats/robust_kbench/tasks/rms_scale/solutions/forward.cpp"),
      "passed", ""};
  robust.job.config["part"] = "init_method_ones_hidden_size_96_batch_size_3_hidden_size_96";
  c.push_back(robust);
  Case not_a_format{
      MakeJob("solution-of-native", "fixture_add", kSolutionKind, fi / "rmsnorm_h64_python.json"),
      "infra_error", "has no solutions of its own form"};
  c.push_back(not_a_format);
  return c;
}

TEST(ServedJobs, EveryShapeOfJobAndTheStore) {
  auto redis = TestRedisServer::Start();
  if (!redis.ok()) GTEST_SKIP() << "no redis-server for this test: " << redis.status().message();
  fs::path dir = *MakeTempDir(fs::temp_directory_path(), "hone-served-jobs");
  fs::create_directories(dir / "problems");
  fs::copy(SourceDir() / "tests/integration/fixture_add", dir / "problems/fixture_add",
           fs::copy_options::recursive);
  fs::copy(SourceDir() / "tasks/pytorch/row_sum.py", dir / "problems/row_sum.py");
  fs::copy(SourceDir() / "tests/formats/flashinfer", dir / "problems/flashinfer",
           fs::copy_options::recursive);
  fs::copy(SourceDir() / "tests/formats/robust_kbench/tasks/rms_scale", dir / "problems/rms_scale",
           fs::copy_options::recursive);
  bool torch = HaveTorch();
  if (!torch) std::printf("no python3 with torch here: the PyTorch jobs are left out\n");
  auto cases = Cases(torch);
  auto queue = RedisJobQueue::Open((*redis)->client_options(), {});
  ASSERT_TRUE(queue.ok()) << queue.status().message();
  for (const auto& c : cases) ASSERT_EQ(*(*queue)->Submit(c.job), SubmitOutcome::kCreated);

  // An infra error is handed back for another worker until the last of
  // the attempts (two here): this worker takes such a job twice.
  constexpr int kAttempts = 2;
  int takes = 0;
  for (const auto& c : cases) takes += c.status == "infra_error" ? kAttempts : 1;
  auto run = RunHoneTraced(
      {"worker", "--backend", "cpu", "--redis", (*redis)->address(), "--problems",
       (dir / "problems").string(), "--store", (dir / "store.db").string(), "--max-attempts",
       std::to_string(kAttempts), "--max-jobs", std::to_string(takes), "--no-time", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // The oracle is launched with the worker, before its first job.
  ASSERT_TRUE(TracedInOrder(run.output, "oracle: starting", "worker: serving"));
  int verdicts = 0;
  for (const auto& c : cases) {
    auto r = (*queue)->GetResult(c.job.id);
    ASSERT_TRUE(r.ok() && *r) << c.job.id << "\n" << run.output;
    EXPECT_EQ((*r)->status, c.status) << c.job.id << ": " << (*r)->error_msg;
    EXPECT_NE((*r)->error_msg.find(c.error_substring), std::string::npos)
        << c.job.id << ": " << (*r)->error_msg;
    EXPECT_NE((*r)->device.find("/cpu"), std::string::npos) << (*r)->device;
    if ((*r)->infra_error()) {
      EXPECT_EQ((*r)->attempts, kAttempts) << c.job.id;
    }
    if (!(*r)->infra_error()) ++verdicts;
  }

  // The verdicts are a run of the store, as a bench's are.
  auto report = RunHone({"report", "last", "--store", (dir / "store.db").string(), "--json"});
  EXPECT_EQ(report.exit_code, 0) << report.output;
  auto exported = RunHone(
      {"export", "last", "--store", (dir / "store.db").string(), "--format", "jsonl", "-q"});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  std::istringstream lines(exported.output);
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    ++rows;
    EXPECT_EQ(j.value("status", ""), "passed") << line.substr(0, 300);
  }
  EXPECT_EQ(rows, verdicts) << "one row per verdict; infra errors have none\n" << exported.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace hone
