// The profiler's pieces that need no GPU: ncu's CSV read back (recorded on
// an H200 from the example suite's softmax solutions), the judge's reading
// of GPU and CPU counters, the JSON round trip, and perf_event counters on
// this process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/fs.h"
#include "measure/profile_judge.h"
#include "support/source_dir.h"
#include "tools/cpu_counters.h"
#include "tools/ncu_profile.h"
#include "verify/profile_json.h"

namespace hone {
namespace {

std::string CsvFixture(const std::string& name) {
  auto text = ReadFile(testing::SourceDir() / "tests/unit/data" / name);
  EXPECT_TRUE(text.ok()) << name;
  return text.ok() ? *text : "";
}

ProfileReport Read(const std::string& fixture) {
  ProfileReport r;
  Status st = ReadNcuCsv(CsvFixture(fixture), r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

double Summary(const ProfileReport& r, const char* m) {
  auto it = r.summary.find(m);
  return it == r.summary.end() ? -1 : it->second;
}

// One CSV row as ncu prints it.
std::string Row(int id, const std::string& kernel, const std::string& metric,
                const std::string& value) {
  return "\"" + std::to_string(id) + "\",\"7\",\"hone-sandbox-cuda\",\"127.0.0.1\",\"" + kernel +
         "\",\"1\",\"13\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
         "metrics\",\"" +
         metric + "\",\"\",\"" + value + "\"\n";
}

const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
    "Unit\",\"Metric Value\"\n";

TEST(NcuCsvTest, ReadsTheNaiveSoftmaxKernel) {
  ProfileReport r = Read("ncu_softmax_naive.txt");
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "softmax_naive(const float *, float *, long, long)");
  EXPECT_EQ(r.kernels[0].launches, 1);
  EXPECT_NEAR(Summary(r, metric::kDuration), 2181.504, 1e-3);
  EXPECT_NEAR(Summary(r, metric::kMemorySol), 42.63, 1e-9);
  EXPECT_NEAR(Summary(r, metric::kComputeSol), 3.24, 1e-9);
  EXPECT_NEAR(Summary(r, metric::kWaves), 0.03, 1e-9);
  EXPECT_NEAR(Summary(r, metric::kGridSize), 64, 1e-9);
  EXPECT_NEAR(Summary(r, "stall_long_scoreboard"), 25.23, 1e-9);
  EXPECT_EQ(r.occupancy_limiter, "registers");  // 16 blocks by registers and by warps: the first
}

TEST(NcuCsvTest, AddsStaticAndDynamicSharedMemory) {
  ProfileReport r = Read("ncu_softmax_fast.txt");
  EXPECT_NEAR(Summary(r, metric::kSharedPerBlock), 256, 1e-9);
  EXPECT_NEAR(Summary(r, metric::kBankConflicts), 5708 + 4532, 1e-9);
  EXPECT_EQ(r.occupancy_limiter, "registers");  // 4 blocks of 256 threads
}

TEST(NcuCsvTest, WeighsKernelsByDurationAndSumsCounts) {
  std::string csv =
      std::string("==PROF== Connected to process 7\nhone-sandbox: standalone call: ok\n") +
      kHeader + Row(0, "short(float *)", "gpu__time_duration.sum", "1000") +
      Row(0, "short(float *)", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
          "40") +
      Row(0, "short(float *)", "dram__bytes_read.sum", "1,000") +
      Row(0, "short(float *)", "launch__block_size", "64") +
      Row(1, "long(float *, int)", "gpu__time_duration.sum", "3000") +
      Row(1, "long(float *, int)",
          "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "80") +
      Row(1, "long(float *, int)", "dram__bytes_read.sum", "3000") +
      Row(1, "long(float *, int)", "dram__bytes_write.sum", "500") +
      Row(1, "long(float *, int)", "launch__block_size", "256") +
      Row(1, "long(float *, int)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "n/a") +
      Row(2, "short(float *)", "gpu__time_duration.sum", "1000") +
      Row(2, "short(float *)", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
          "60");
  ProfileReport r;
  ASSERT_TRUE(ReadNcuCsv(csv, r).ok());
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "long(float *, int)") << "the longest kernel first";
  EXPECT_EQ(r.kernels[1].launches, 2);
  EXPECT_NEAR(r.kernels[1].metrics[metric::kMemorySol], 50, 1e-9);  // equal durations
  EXPECT_NEAR(Summary(r, metric::kDuration), 5, 1e-9);              // microseconds
  EXPECT_NEAR(Summary(r, metric::kMemorySol), (50 * 2 + 80 * 3) / 5.0, 1e-9);
  EXPECT_NEAR(Summary(r, metric::kDramBytes), 1000 + 3500, 1e-9);
  EXPECT_NEAR(Summary(r, metric::kBlockSize), 256, 1e-9) << "the longest kernel's launch";
  EXPECT_EQ(r.summary.count(metric::kComputeSol), 0u) << "n/a is not a value";
}

TEST(NcuCsvTest, OutputWithoutRowsIsAnError) {
  ProfileReport r;
  Status st = ReadNcuCsv("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", r);
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(ReadNcuCsv(std::string(kHeader), r).ok());
}

TEST(NcuCsvTest, AsksForTheDocumentedMetricSet) {
  NcuJob job;
  job.ncu = "/usr/local/cuda/bin/ncu";
  job.report_dir = "/tmp/reports";
  job.max_kernels = 8;
  std::vector<std::string> args = NcuArguments(job);
  std::string all;
  for (const auto& a : args) all += a + " ";
  for (const char* m :
       {"--csv", "--print-units base", "--log-file /tmp/reports/ncu.csv", "--launch-count 8",
        "dram__throughput", "sm__throughput", "lts__throughput", "l1tex__throughput",
        "sm__warps_active", "launch__occupancy_limit_registers", "launch__registers_per_thread",
        "stalled_long_scoreboard", "stalled_barrier",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"})
    EXPECT_NE(all.find(m), std::string::npos) << m;
  EXPECT_EQ(all.find("--profile-from-start"), std::string::npos);
  // A ModelNew's forward alone, between the marks its shim makes.
  job.between_profiler_marks = true;
  all.clear();
  for (const auto& a : NcuArguments(job)) all += a + " ";
  EXPECT_NE(all.find("--profile-from-start off"), std::string::npos) << all;
}

// A ModelNew's call runs in its shim's environment, with the forward's
// marks asked for: without them ncu waited for marks that never came
// ("ncu measured no kernel", seen on an H100).
TEST(NcuCsvTest, AModelNewIsProfiledInItsOwnEnvironment) {
  NcuJob job;
  job.ncu = "/usr/local/cuda/bin/ncu";
  job.report_dir = "/tmp/reports";
  job.between_profiler_marks = true;
  job.call.sandbox = "/bin/hone-sandbox-cuda";
  job.call.scratch = "/tmp/scratch";
  job.call.compat = true;
  job.call.env = {"PYTHONPATH=/opt/hone/python", "HONE_PROFILE_FORWARD=1"};
  std::vector<std::string> argv = NcuCommand(job);
  auto at = [&](const std::string& a) {
    return std::find(argv.begin(), argv.end(), a) - argv.begin();
  };
  ASSERT_EQ(argv.front(), "env");
  EXPECT_LT(at("HONE_PROFILE_FORWARD=1"), at(job.ncu.string()));
  EXPECT_LT(at("PYTHONPATH=/opt/hone/python"), at(job.ncu.string()));
  EXPECT_LT(at(job.ncu.string()), at("/bin/hone-sandbox-cuda"));
  EXPECT_LT(at("/bin/hone-sandbox-cuda"), static_cast<long>(argv.size()));
}

JudgeContext Gpu() {
  JudgeContext c;
  c.cores = 132;  // an H100's SMs
  return c;
}

TEST(ProfileJudgeTest, NaiveSoftmaxIsUnderutilisedForWantOfBlocks) {
  ProfileReport r = Read("ncu_softmax_naive.txt");
  ProfileDiagnosis d = JudgeProfile(r, Gpu());
  EXPECT_EQ(d.label, "underutilised, memory-bound");
  std::string evidence;
  for (const auto& e : d.evidence) evidence += e + "\n";
  EXPECT_NE(evidence.find("leaves 68 of the 132 SMs idle"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("L1 is busy"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("global memory loads"), std::string::npos) << evidence;
  EXPECT_NE(d.fix.find("blocks"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("coalesce"), std::string::npos) << d.fix;
}

TEST(ProfileJudgeTest, FastSoftmaxIsNearTheMemoryCeiling) {
  ProfileReport r = Read("ncu_softmax_fast.txt");
  ProfileDiagnosis d = JudgeProfile(r, Gpu());
  EXPECT_EQ(d.label, "near the memory ceiling");
  EXPECT_NE(d.fix.find("fewer bytes"), std::string::npos) << d.fix;
}

TEST(ProfileJudgeTest, NamesTheSharesBetweenTheThresholds) {
  ProfileReport r;
  r.summary = {{metric::kMemorySol, 65}, {metric::kDram, 65}, {metric::kComputeSol, 20}};
  EXPECT_EQ(JudgeProfile(r, Gpu()).label, "memory-bound");
  r.summary = {{metric::kMemorySol, 30}, {metric::kDram, 30}, {metric::kComputeSol, 70}};
  EXPECT_EQ(JudgeProfile(r, Gpu()).label, "compute-bound");
  r.summary = {{metric::kMemorySol, 30}, {metric::kDram, 30}, {metric::kComputeSol, 96}};
  EXPECT_EQ(JudgeProfile(r, Gpu()).label, "near the compute ceiling");
  // L1 saturated by scattered loads that DRAM barely sees: not a ceiling.
  r.summary = {{metric::kMemorySol, 96},
               {metric::kL1, 100},
               {metric::kDram, 16},
               {metric::kComputeSol, 6},
               {"stall_long_scoreboard", 60}};
  ProfileDiagnosis scattered = JudgeProfile(r, Gpu());
  EXPECT_EQ(scattered.label, "underutilised, memory-bound");
  EXPECT_NE(scattered.fix.find("coalesce"), std::string::npos) << scattered.fix;
  EXPECT_EQ(scattered.fix.find("coalesce"), scattered.fix.rfind("coalesce"))
      << "one coalescing fix, not two: " << scattered.fix;
  r.summary = {{metric::kMemorySol, 30},
               {metric::kDram, 30},
               {metric::kComputeSol, 20},
               {metric::kTheoreticalOccupancy, 25},
               {"stall_barrier", 6}};
  r.occupancy_limiter = "shared memory";
  ProfileDiagnosis d = JudgeProfile(r, Gpu());
  EXPECT_EQ(d.label, "underutilised, memory-bound");
  EXPECT_NE(d.fix.find("shared memory"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("barriers"), std::string::npos) << d.fix;
}

// On an H200 the fast softmax read DRAM 70% of ncu's peak while hone's
// timing put it at 97% of the task's speed of light: near the ceiling there
// is, not "memory-bound" with advice to coalesce.
TEST(ProfileJudgeTest, AtTheTasksSpeedOfLightIsNearTheMemoryCeiling) {
  ProfileReport r;
  r.summary = {{metric::kMemorySol, 83}, {metric::kDram, 70}, {metric::kComputeSol, 55}};
  JudgeContext c = Gpu();
  c.sol_percent = 97;
  EXPECT_EQ(JudgeProfile(r, c).label, "near the memory ceiling");
  c.sol_percent = 60;
  EXPECT_EQ(JudgeProfile(r, c).label, "memory-bound");
}

TEST(ProfileJudgeTest, SaysWhenDramTrafficExceedsWhatTheTaskNeeds) {
  ProfileReport r;
  r.summary = {{metric::kMemorySol, 90},
               {metric::kDram, 90},
               {metric::kComputeSol, 10},
               {metric::kDramBytes, 3e9}};
  JudgeContext c;
  c.ideal_bytes = 1e9;
  ProfileDiagnosis d = JudgeProfile(r, c);
  ASSERT_EQ(d.label, "near the memory ceiling");
  bool said = false;
  for (const auto& e : d.evidence) said |= e.find("3.0x the bytes") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ProfileJudgeTest, CpuCountersNameTheLimit) {
  JudgeContext c;
  c.host_counters = true;
  c.cores = 8;
  ProfileReport r;
  r.summary = {{metric::kTaskClock, 0.010}, {metric::kWallClock, 0.010}};
  EXPECT_EQ(JudgeProfile(r, c).label, "single-threaded");
  r.summary = {{metric::kTaskClock, 0.078},     {metric::kWallClock, 0.010},
               {metric::kCyclesMetric, 2e8},    {metric::kInstructions, 1e8},
               {metric::kCacheReferences, 1e6}, {metric::kCacheMisses, 4e5},
               {metric::kPageFaults, 500}};
  ProfileDiagnosis d = JudgeProfile(r, c);
  EXPECT_EQ(d.label, "memory-bound");
  EXPECT_NE(d.fix.find("allocate once"), std::string::npos) << d.fix;
  r.summary[metric::kInstructions] = 6e8;
  r.summary[metric::kCacheMisses] = 1e4;
  EXPECT_EQ(JudgeProfile(r, c).label, "compute-bound");
  c.sol_percent = 80;
  EXPECT_EQ(JudgeProfile(r, c).label, "near the roofline");
}

TEST(ProfileJudgeTest, NothingToSayWhenNothingRan) {
  ProfileReport r;
  r.not_run = "ncu not found";
  EXPECT_TRUE(JudgeProfile(r, Gpu()).label.empty());
  EXPECT_EQ(DiagnosisText(r), "");
}

TEST(ProfileJsonTest, RoundTrips) {
  ProfileReport r = Read("ncu_softmax_naive.txt");
  r.tool = "ncu 2025.3.1";
  r.case_label = "B=8192 N=4096";
  r.seconds = 2.4;
  r.missing = {"cycles: no hardware counters"};
  r.diagnosis = JudgeProfile(r, Gpu());
  ProfileReport back = ProfileFromJson(nlohmann::json::parse(ProfileToJson(r).dump()));
  EXPECT_EQ(back.tool, r.tool);
  EXPECT_EQ(back.case_label, r.case_label);
  EXPECT_EQ(back.summary, r.summary);
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].metrics, r.kernels[0].metrics);
  EXPECT_EQ(back.diagnosis.label, r.diagnosis.label);
  EXPECT_EQ(back.diagnosis.evidence, r.diagnosis.evidence);
  EXPECT_EQ(back.missing, r.missing);
  EXPECT_EQ(DiagnosisText(back), DiagnosisText(r));
  EXPECT_NE(DiagnosisText(r).find("likely fix: "), std::string::npos);
}

// A stored verdict may come from an import: wrong-typed or missing fields
// read back as defaults, and nothing throws.
TEST(ProfileJsonTest, ToleratesWhatAnImportedVerdictHolds) {
  auto j = nlohmann::json::parse(R"({"tool": 7, "summary": {"dram_pct": "x", "l1_pct": 40},
                                     "kernels": {"not": "a list"}, "missing": [1, "cycles"],
                                     "diagnosis": "not an object", "not_run": null})");
  ProfileReport p = ProfileFromJson(j);
  EXPECT_EQ(p.tool, "");
  EXPECT_EQ(p.summary, (std::map<std::string, double>{{"l1_pct", 40}}));
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_EQ(p.missing, std::vector<std::string>{"cycles"});
  EXPECT_EQ(p.diagnosis.label, "");
  EXPECT_TRUE(p.ran());
  EXPECT_FALSE(ProfileOfVerdict(nlohmann::json::parse(R"({"profile": null})")));
  EXPECT_FALSE(ProfileOfVerdict(nlohmann::json::parse("[1, 2]")));
  EXPECT_FALSE(ProfileOfVerdict(nlohmann::json::parse("{}")));
  EXPECT_TRUE(ProfileOfVerdict(nlohmann::json::parse(R"({"profile": {}})")));
}

TEST(ProfileJudgeTest, CountedDramBytesOverruleTheTimingGap) {
  ProfileReport r;
  r.summary = {{metric::kMemorySol, 80},
               {metric::kDram, 80},
               {metric::kComputeSol, 10},
               {metric::kDramBytes, 1.1e9}};
  JudgeContext c = Gpu();
  c.ideal_bytes = 1e9;
  c.sol_percent = 50;
  ProfileDiagnosis d = JudgeProfile(r, c);
  for (const auto& e : d.evidence)
    EXPECT_EQ(e.find("moves more bytes"), std::string::npos)
        << "the counter says it moves 1.1x the bytes: " << e;
  r.summary.erase(metric::kDramBytes);
  d = JudgeProfile(r, c);
  bool said = false;
  for (const auto& e : d.evidence) said |= e.find("moves more bytes") != std::string::npos;
  EXPECT_TRUE(said) << "without the counter, the timing gap says so";
}

// Software counters are there even in a VM; hardware ones may not be, and
// then say so.
TEST(CpuCountersTest, CountThisProcessOrSayWhyNot) {
  CpuCounters counters;
  bool opened = counters.Open(getpid());
  ASSERT_TRUE(opened || !counters.missing().empty());
  if (!opened) GTEST_SKIP() << "perf_event_open refused: " << counters.missing().front();
  counters.Start();
  std::vector<char> touched(64 << 20);
  for (size_t i = 0; i < touched.size(); i += 4096) touched[i] = 1;
  counters.Stop();
  auto values = counters.Read();
  for (const auto& m : counters.missing())
    EXPECT_NE(m.find(": "), std::string::npos) << "names the counter and the reason: " << m;
  if (values.count(metric::kPageFaults)) {
    // 4 KiB pages or, with transparent huge pages, 2 MiB ones.
    EXPECT_GE(values[metric::kPageFaults], 32) << "64 MiB touched page by page";
  }
  if (values.count(metric::kInstructions)) {
    EXPECT_GT(values[metric::kInstructions], 16000);
  }
}

}  // namespace
}  // namespace hone
