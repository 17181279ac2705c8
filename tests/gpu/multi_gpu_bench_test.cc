// `hone bench --devices all` on a node of several GPUs (ctest label "gpu"):
// the example suite's CUDA solutions spread over every GPU give the
// verdicts one GPU gives, each verdict names the GPU that made it, both
// GPUs take units, and a bench killed mid-run and resumed over all GPUs
// redoes nothing finished. Skipped, saying why, with fewer than 2 GPUs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cuda/gpu.h"
#include "integration/bench_runs.h"
#include "integration/test_env.h"
#include "store/store.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::FinishedUnits;
using testing::JsonIn;
using testing::RunHone;
using testing::RunOrKill;
using testing::SourceDir;

#define REQUIRE_TWO_GPUS()                                                                 \
  do {                                                                                     \
    if (GpuCount() < 2)                                                                    \
      GTEST_SKIP() << "needs 2 CUDA GPUs, this machine has " << GpuCount()                 \
                   << ": multi-GPU bench test skipped (run it on a node of several GPUs)"; \
  } while (0)

std::map<std::string, std::string> StatusBySolution(const json& j) {
  std::map<std::string, std::string> r;
  for (const auto& x : j.at("results")) r[x.at("solution")] = x.at("status");
  return r;
}

struct MultiGpuBenchTest : ::testing::Test {
  void SetUp() override {
    testing::TestCache();
    setenv("HONE_SANDBOX_CUDA", (testing::BinaryDir() / "hone-sandbox-cuda").c_str(), 1);
    dir = *MakeTempDir(fs::temp_directory_path(), "hone-multi-gpu");
    suite = dir / "suite";
    fs::create_directories(suite);
    for (const char* t : {"gelu", "row_sum", "softmax", "layernorm", "matmul"})
      fs::copy(SourceDir() / "tasks/examples" / t, suite / t, fs::copy_options::recursive);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path dir, suite;
};

TEST_F(MultiGpuBenchTest, AllGpusGiveTheVerdictsOfOne) {
  REQUIRE_TWO_GPUS();
  auto one = RunHone({"bench", suite.string(), "--backend", "cuda", "--store",
                      (dir / "one.db").string(), "--no-time", "--json", "--quiet"});
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto all = RunHone({"bench", suite.string(), "--devices", "all", "--store",
                      (dir / "all.db").string(), "--no-time", "--json", "--quiet"});
  ASSERT_EQ(all.exit_code, 0) << all.output;
  json a = JsonIn(one.output), b = JsonIn(all.output);
  EXPECT_EQ(StatusBySolution(b), StatusBySolution(a));
  ASSERT_EQ(b["summary"]["lanes"].size(), static_cast<size_t>(GpuCount()));
  std::set<std::string> devices, buses;
  for (const auto& x : b["results"]) {
    EXPECT_EQ(x["tries"], 1);
    devices.insert(x["verdict"]["machine"]["device"].get<std::string>());
    buses.insert(x["verdict"]["machine"]["pci_bus_id"].get<std::string>());
  }
  EXPECT_GE(devices.size(), 2u) << "one GPU did every unit";
  EXPECT_EQ(devices.size(), buses.size()) << "two devices with one PCI bus id";
  for (const auto& l : b["summary"]["lanes"]) EXPECT_FALSE(l.contains("failure")) << l.dump();
}

// Timed on all GPUs at once: every solution passes with a speedup, and no
// verdict says its lane shared its device.
TEST_F(MultiGpuBenchTest, TimedOverAllGpus) {
  REQUIRE_TWO_GPUS();
  auto r = RunHone({"bench", suite.string(), "--devices", "all", "--store", (dir / "t.db").string(),
                    "--time-budget", "0.3", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& x : JsonIn(r.output)["results"]) {
    EXPECT_EQ(x["status"], "passed") << x["solution"] << ": " << x["verdict"]["reason"];
    EXPECT_GT(x.value("speedup", 0.0), 0) << x["solution"];
    EXPECT_EQ(x["verdict"]["notes"].dump().find("other evaluation lane"), std::string::npos);
  }
}

TEST_F(MultiGpuBenchTest, KilledOverAllGpusThenResumedRedoesNothingFinished) {
  REQUIRE_TWO_GPUS();
  fs::path db = dir / "k.db";
  pid_t pid = testing::SpawnHone({"bench", suite.string(), "--devices", "all", "--store",
                                  db.string(), "--no-time", "--quiet"});
  std::map<std::string, std::string> before;  // work key -> finish time
  for (int i = 0; i < 600 && before.size() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto store = Store::Open(db);
    if (!store.ok()) continue;
    auto rows = (*store)->RunCandidates(1);
    if (!rows.ok()) continue;
    before.clear();
    for (const auto& c : *rows)
      if (c.evaluation && c.evaluation->state == "finished")
        before[c.evaluation->work_key] = c.evaluation->finished;
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_GE(before.size(), 3u) << "the bench finished too few units before the kill";
  auto resumed = RunHone(
      {"bench", "--resume", "1", "--store", db.string(), "--devices", "all", "--json", "--quiet"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  json j = JsonIn(resumed.output);
  for (const auto& x : j["results"]) EXPECT_EQ(x["status"], "passed") << x["solution"];
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok());
  auto rows = (*store)->RunCandidates(1);
  ASSERT_TRUE(rows.ok());
  for (const auto& c : *rows) {
    ASSERT_TRUE(c.evaluation);
    EXPECT_EQ(c.evaluation->state, "finished");
    auto was = before.find(c.evaluation->work_key);
    if (was != before.end()) {
      EXPECT_EQ(c.evaluation->finished, was->second);
    }
  }
  EXPECT_TRUE((*store)->PendingWork(1)->empty());
}

}  // namespace
}  // namespace hone
