// Declared tunables (tune/tunables.h) through `hone eval`: every variant
// is built, verified and timed, and the fastest that passed is kept, on a
// candidate built so that the answer is known: REPEAT=400 does the work 400
// times, SCALE=3 computes the wrong result.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/fs.h"
#include "test_env.h"

namespace hone {
namespace {

using namespace hone::testing;

const char* kTunedCandidate = R"(// fixture_add (out = a + 2 b) with two tunables.
// hone: tune REPEAT in {400, 1}
// hone: tune SCALE in {2, 3}
#include <hone/kernel.h>
#ifndef REPEAT
#define REPEAT 4
#endif
#ifndef SCALE
#define SCALE 2
#endif

template <typename T>
static void add(const T* a, const T* b, T* out, int64_t n) {
  for (int r = 0; r < REPEAT; ++r)
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + T(SCALE) * b[i];
}

HONE_EXPORT int hone_forward(const hone_args* args) {
  const hone_tensor& a = args->inputs[0];
  const hone_tensor& b = args->inputs[1];
  hone_tensor& out = args->outputs[0];
  int64_t n = hone_numel(&out);
  if (a.dtype == HONE_F32)
    add(static_cast<const float*>(a.data), static_cast<const float*>(b.data),
        static_cast<float*>(out.data), n);
  else if (a.dtype == HONE_F64)
    add(static_cast<const double*>(a.data), static_cast<const double*>(b.data),
        static_cast<double*>(out.data), n);
  else
    return 1;
  return 0;
}
)";

// `hone bench --backend cpu FLAGS` over a suite of fixture_add whose
// solutions are `solutions` (file name -> source), in `dir`: the bench's
// JSON, or a null value after a failure said.
nlohmann::json BenchFixtureAdd(const std::filesystem::path& dir,
                               const std::map<std::string, std::string>& solutions,
                               const std::vector<std::string>& flags) {
  std::filesystem::path task = dir / "suite/fixture_add";
  std::filesystem::create_directories(task);
  std::filesystem::copy(SourceDir() / "tests/integration/fixture_add", task,
                        std::filesystem::copy_options::recursive);
  std::filesystem::create_directories(task / "solutions");
  for (const auto& [name, source] : solutions)
    EXPECT_TRUE(WriteFileAtomic(task / "solutions" / name, source).ok()) << name;
  std::vector<std::string> args = {
      "bench",   (dir / "suite").string(),   "--backend", "cpu", "--json",
      "--store", (dir / "store.db").string()};
  args.insert(args.end(), flags.begin(), flags.end());
  auto r = RunHone(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  size_t brace = r.output.find('{');
  auto j = nlohmann::json::parse(brace == std::string::npos ? "" : r.output.substr(brace), nullptr,
                                 false);
  EXPECT_TRUE(j.is_object()) << r.output;
  return j.is_object() ? j : nlohmann::json();
}

TEST(AutotuneTest, EvalKeepsTheFastestVariantThatPassesAndNamesIt) {
  auto dir = MakeTempDir(TestCache() / "tmp", "autotune-test");
  ASSERT_TRUE(dir.ok());
  std::filesystem::path candidate = *dir / "tuned.cpp";
  ASSERT_TRUE(WriteFileAtomic(candidate, kTunedCandidate).ok());
  auto r = RunHone({"eval", (SourceDir() / "tests/integration/fixture_add").string(),
                    candidate.string(), "--json", "--time-budget", "0.3", "--warmup", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["status"], "passed") << j.dump(2);
  ASSERT_TRUE(j.contains("tuning")) << j.dump(2);
  EXPECT_EQ(j["tuning"]["params"], "REPEAT=1 SCALE=2") << j["tuning"].dump(2);
  EXPECT_EQ(j["candidate"], candidate.string());
  const auto& trials = j["tuning"]["trials"];
  ASSERT_EQ(trials.size(), 4u);
  EXPECT_EQ(trials[0]["params"], "REPEAT=400 SCALE=2");
  EXPECT_EQ(trials[0]["status"], "passed");
  EXPECT_EQ(trials[1]["status"], "incorrect");  // SCALE=3
  EXPECT_EQ(trials[3]["status"], "incorrect");
  EXPECT_GT(trials[0]["median_us"].get<double>(), 2 * trials[2]["median_us"].get<double>());
  std::filesystem::remove_all(*dir);
}

// `hone bench` evaluates through the same entry as `hone eval`: a tuned
// candidate in a suite is scored as its fastest passing variant.
TEST(AutotuneTest, BenchScoresATunedCandidateAsEvalDoes) {
  auto dir = MakeTempDir(TestCache() / "tmp", "autotune-test");
  ASSERT_TRUE(dir.ok());
  auto j = BenchFixtureAdd(*dir, {{"tuned.cpp", kTunedCandidate}},
                           {"--time-budget", "0.3", "--warmup", "0.01"});
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["results"].size(), 1u) << j.dump(2);
  const auto& v = j["results"][0]["verdict"];
  EXPECT_EQ(v["status"], "passed") << v.dump(2);
  ASSERT_TRUE(v.contains("tuning")) << v.dump(2);
  EXPECT_EQ(v["tuning"]["params"], "REPEAT=1 SCALE=2");
  EXPECT_EQ(v["tuning"]["trials"].size(), 4u);
  std::filesystem::remove_all(*dir);
}

// In a bench, a malformed declaration is that candidate's compile_error, not
// the task's fault: the task's other candidates are still scored.
TEST(AutotuneTest, BenchGivesAMalformedDeclarationItsOwnVerdict) {
  auto dir = MakeTempDir(TestCache() / "tmp", "autotune-test");
  ASSERT_TRUE(dir.ok());
  auto correct = ReadFile(SourceDir() / "tests/adversarial/cpu/correct.cpp");
  ASSERT_TRUE(correct.ok());
  auto j = BenchFixtureAdd(*dir,
                           {{"unguarded.cpp", "// hone: tune BLOCK in {1, 2}\n#define BLOCK 4\n"},
                            {"correct.cpp", *correct}},
                           {"--no-time"});
  ASSERT_TRUE(j.is_object());
  std::map<std::string, std::string> status, reason;
  for (const auto& u : j["results"]) {
    std::string name = std::filesystem::path(u.value("solution", "")).filename().string();
    status[name] = u.value("status", "");
    reason[name] = u["verdict"].value("reason", "");
  }
  EXPECT_EQ(status["correct.cpp"], "passed") << j.dump(2);
  EXPECT_EQ(status["unguarded.cpp"], "compile_error") << j.dump(2);
  EXPECT_NE(reason["unguarded.cpp"].find("line 2"), std::string::npos) << reason["unguarded.cpp"];
  std::filesystem::remove_all(*dir);
}

TEST(AutotuneTest, AnUnguardedDefineIsRefusedWithItsLine) {
  auto dir = MakeTempDir(TestCache() / "tmp", "autotune-test");
  ASSERT_TRUE(dir.ok());
  std::filesystem::path candidate = *dir / "unguarded.cpp";
  ASSERT_TRUE(WriteFileAtomic(candidate, "// hone: tune BLOCK in {1, 2}\n#define BLOCK 4\n").ok());
  auto r = RunHone(
      {"eval", (SourceDir() / "tests/integration/fixture_add").string(), candidate.string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("line 2: tunable BLOCK is #defined without `#ifndef BLOCK`"),
            std::string::npos)
      << r.output;
  std::filesystem::remove_all(*dir);
}

}  // namespace
}  // namespace hone
