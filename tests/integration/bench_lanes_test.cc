// `hone bench --lanes N` (several evaluations at once on the CPU, the path
// `--devices` takes over GPUs) gives each unit the verdict a one-lane bench
// gives it, records every unit once whichever lane ran it, and keeps
// --resume's promise across kills: nothing finished is evaluated again,
// nothing is lost. The flags that cannot apply here are refused with exit 2
// and a message naming them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "cli/device_list.h"
#include "integration/bench_runs.h"
#include "integration/test_env.h"
#include "store/store.h"

namespace hone {
namespace {
// Its own namespace: this file's helpers may share a name with another
// file's in the same unity unit.
namespace bench_lanes_test {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::FinishedUnits;
using testing::JsonIn;
using testing::RunHone;
using testing::SourceDir;
using Results = std::map<std::string, std::string>;  // solution -> status

// A line of its own keeps these builds from standing in for other tests'
// in the compile cache (keyed by content; it keeps the first file name).
std::string Candidate(const std::string& file) {
  return *ReadFile(SourceDir() / "tests/adversarial/cpu" / file) + "// bench lanes test\n";
}

struct BenchLanesTest : ::testing::Test {
  void SetUp() override {
    testing::TestCache();
    dir = *MakeTempDir(fs::temp_directory_path(), "hone-bench-lanes");
    suite = dir / "suite";
    fs::create_directories(suite);
    ASSERT_NO_FATAL_FAILURE(testing::CopySmallExamples(suite, {"gelu", "row_sum", "softmax"}));
    // A task whose solutions get every kind of verdict.
    fs::path add = suite / "fixture_add";
    fs::create_directories(add / "solutions");
    for (const char* f : {"task.toml", "reference.cpp"})
      fs::copy(SourceDir() / "tests/integration/fixture_add" / f, add / f);
    std::string correct = Candidate("correct.cpp");
    std::string wrong = correct;
    wrong.replace(wrong.find("2.0f * b[i]"), 11, "b[i]");
    Write(add / "solutions/correct.cpp", correct);
    Write(add / "solutions/wrong.cpp", wrong);
    Write(add / "solutions/segfault.cpp", Candidate("segfault.cpp"));
    Write(add / "solutions/compile_error.cpp", Candidate("compile_error.cpp"));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static void Write(const fs::path& p, const std::string& text) {
    ASSERT_TRUE(WriteFileAtomic(p, text).ok()) << p;
  }
  // A verification-only bench (verdicts that do not depend on the load).
  std::vector<std::string> Bench(const fs::path& db, std::vector<std::string> more) const {
    std::vector<std::string> args = {"bench", suite.string(), "--store", db.string(), "--no-time"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
  fs::path dir, suite;
};

constexpr size_t kUnits = 10;

Results ResultsOf(const json& j) {
  Results r;
  for (const auto& x : j.at("results"))
    r[x.at("solution").get<std::string>()] = x.at("status").get<std::string>();
  return r;
}

std::string Joined(const std::vector<std::string>& args) {
  std::string out = "hone";
  for (const auto& a : args) out += " " + a;
  return out;
}

TEST_F(BenchLanesTest, ThreeLanesGiveTheVerdictsOfOne) {
  auto one = RunHone(Bench(dir / "one.db", {"--json", "--quiet"}));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto three = RunHone(Bench(dir / "three.db", {"--lanes", "3", "--json", "--quiet"}));
  ASSERT_EQ(three.exit_code, 0) << three.output;
  json a = JsonIn(one.output), b = JsonIn(three.output);
  Results expected = ResultsOf(a);
  ASSERT_EQ(expected.size(), kUnits);
  EXPECT_EQ(expected["fixture_add/correct.cpp"], "passed");
  EXPECT_EQ(expected["fixture_add/wrong.cpp"], "incorrect");
  EXPECT_EQ(expected["fixture_add/segfault.cpp"], "runtime_error");
  EXPECT_EQ(expected["fixture_add/compile_error.cpp"], "compile_error");
  EXPECT_EQ(ResultsOf(b), expected);
  // Results in suite order, whatever order the lanes finished in.
  for (size_t i = 0; i < kUnits; ++i)
    EXPECT_EQ(a["results"][i]["solution"], b["results"][i]["solution"]) << i;
  // The same shape, one key more: where each lane ran and what it did.
  EXPECT_FALSE(a["summary"].contains("lanes"));
  ASSERT_EQ(b["summary"]["lanes"].size(), 3u);
  int evaluated = 0;
  std::set<std::string> names;
  for (const auto& l : b["summary"]["lanes"]) {
    evaluated += l["evaluated"].get<int>();
    names.insert(l["name"].get<std::string>());
    EXPECT_EQ(l["machine"]["device"], "cpu");
    EXPECT_FALSE(l.contains("failure")) << l.dump();
  }
  EXPECT_EQ(names, (std::set<std::string>{"cpu#0", "cpu#1", "cpu#2"}));
  EXPECT_EQ(evaluated, static_cast<int>(kUnits));
  EXPECT_EQ(b["summary"]["evaluated_now"], kUnits);
  for (const auto& x : b["results"]) {
    EXPECT_EQ(x["tries"], 1) << x["solution"];
    EXPECT_EQ(x["verdict"]["machine"]["device"], "cpu") << x["solution"];
  }
  // One finished evaluation per unit in the store.
  auto store = Store::Open(dir / "three.db");
  ASSERT_TRUE(store.ok());
  auto counts = (*store)->StatusCounts(1);
  ASSERT_TRUE(counts.ok());
  int n = 0;
  for (const auto& [status, c] : *counts) n += c;
  EXPECT_EQ(n, static_cast<int>(kUnits));
  EXPECT_EQ(counts->count("pending"), 0u);
}

// Timed on lanes that share the CPU: the verdict says its times interfered.
// Two lanes on a 2-core machine that also runs other tests can be
// preempted inside a timed call, which the reported-time check rightly
// rejects ("timing does not add up"); such a run is tried again, twice at
// most, as that is the machine's load and not what this test is about.
TEST_F(BenchLanesTest, TimedVerdictsOfSharedLanesSaySo) {
  json v;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string db = (dir / ("t" + std::to_string(attempt) + ".db")).string();
    auto r = RunHone({"bench", (suite / "fixture_add").string(), "--store", db, "--lanes", "2",
                      "--only", "correct", "--json", "--quiet", "--time-budget", "0.05", "--warmup",
                      "0.01", "--min-reps", "3", "--max-reps", "20"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    json j = JsonIn(r.output);
    ASSERT_EQ(j["results"].size(), 1u);
    v = j["results"][0]["verdict"];
    if (v["status"] != "rejected" ||
        v.value("reason", "").find("timing does not add up") == std::string::npos)
      break;
  }
  ASSERT_EQ(v["status"], "passed") << v.dump();
  std::string notes = v["notes"].dump();
  EXPECT_NE(notes.find("timed on cpu with 1 other evaluation lane(s)"), std::string::npos) << notes;
}

TEST_F(BenchLanesTest, SigkillWithLanesThenResumeRedoesNothingFinished) {
  auto reference = RunHone(Bench(dir / "reference.db", {"--json", "--quiet"}));
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  Results expected = ResultsOf(JsonIn(reference.output));

  fs::path db = dir / "killed.db";
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("HONE_TEST_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("kill points from seed %llu (HONE_TEST_SEED replays it)\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  // Each round is killed once a drawn number of units has finished (at
  // least one more than before, and never the last), after a drawn delay
  // within the next unit: kills land mid-run however fast the machine, and
  // every round but the last is killed.
  std::uniform_real_distribution<double> delay(0.0, 0.3);
  std::map<std::string, std::string> seen;  // finished before some kill
  int kills = 0;
  for (int round = 0; round < 6; ++round) {
    // Lanes are not stored with the run: each resume says how many it wants.
    std::string lanes = round % 2 == 0 ? "2" : "3";
    auto args = round == 0 ? Bench(db, {"--lanes", lanes, "--quiet"})
                           : std::vector<std::string>{"bench",     "--resume", "1",   "--store",
                                                      db.string(), "--lanes",  lanes, "--quiet"};
    const size_t before = seen.size();
    const size_t target = before + 1 >= kUnits - 1
                              ? kUnits
                              : std::uniform_int_distribution<size_t>(before + 1, kUnits - 2)(rng);
    const double after = round == 0 ? 0 : delay(rng);
    bool ended = testing::RunUntilUnitsThenKill(testing::SpawnHone(args), db, target, after);
    kills += !ended;
    if (!fs::exists(db)) continue;
    auto now = FinishedUnits(db);
    std::printf("round %d (%s lanes): %s after %zu units + %.2f s, %zu of %zu finished\n", round,
                lanes.c_str(), ended ? "ended" : "killed", target, after, now.size(), kUnits);
    for (const auto& [key, when] : seen) EXPECT_EQ(now[key], when) << key;
    seen = now;
    if (ended) break;
  }
  EXPECT_GT(kills, 0);
  auto resumed = RunHone(
      {"bench", "--resume", "1", "--store", db.string(), "--lanes", "2", "--json", "--quiet"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(ResultsOf(JsonIn(resumed.output)), expected);
  auto finished = FinishedUnits(db);
  EXPECT_EQ(finished.size(), kUnits);
  for (const auto& [key, when] : seen) EXPECT_EQ(finished[key], when) << key;
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  auto pending = (*store)->PendingWork(1);
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
  auto counts = (*store)->StatusCounts(1);
  ASSERT_TRUE(counts.ok());
  int evaluations = 0;
  for (const auto& [status, n] : *counts) evaluations += n;
  EXPECT_EQ(evaluations, static_cast<int>(kUnits));
  EXPECT_EQ((*store)->GetRun(1)->status, "finished");
}

// What cannot apply on this machine or this backend is refused before any
// work, exit 2, naming the flag.
TEST_F(BenchLanesTest, DevicesAndLanesRefusals) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::string s = suite.string(), db = (dir / "r.db").string();
  std::vector<Case> cases = {
      {{"bench", s, "--store", db, "--backend", "cpu", "--devices", "0,1"},
       "--devices: the cpu backend has no devices"},
      {{"bench", s, "--store", db, "--backend", "cuda", "--lanes", "2"},
       "--lanes: parallel lanes are for the cpu backend"},
      {{"bench", s, "--store", db, "--lanes", "2", "--devices", "0"},
       "--devices and --lanes: give one, not both"},
      {{"bench", s, "--store", db, "--lanes", "0"}, "--lanes"},
      {{"bench", s, "--store", db, "--devices", "1-0"}, "--devices: the range 1-0 runs backwards"},
  };
  if (cli::DeviceCount("cuda") == 0) {
    cases.push_back(
        {{"bench", s, "--store", db, "--devices", "all"}, "--devices all: no GPU is present"});
  }
  for (const Case& c : cases) {
    auto r = RunHone(c.args);
    EXPECT_EQ(r.exit_code, 2) << Joined(c.args) << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << Joined(c.args) << "\n" << r.output;
  }
  // Nothing was begun for a refused bench.
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE((*store)->ListRuns()->empty());
}

}  // namespace bench_lanes_test
}  // namespace
}  // namespace hone
