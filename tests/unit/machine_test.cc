// The machine's identity and the size of its copy probe
// (src/measure/machine.h), from a sysfs tree written by the test.
#include "measure/machine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/fs.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

// `cpus` cores, each with an L2 of its own and an L3 shared by groups of
// `per_l3`, as Linux lists them (sizes "1024K", "32768K").
void WriteCpus(const fs::path& root, int cpus, int per_l3) {
  for (int c = 0; c < cpus; ++c) {
    fs::path cache = root / ("cpu" + std::to_string(c)) / "cache";
    Write(cache / "index2" / "size", "1024K");
    Write(cache / "index2" / "shared_cpu_list", std::to_string(c));
    int first = c / per_l3 * per_l3;
    Write(cache / "index3" / "size", "32768K");
    Write(cache / "index3" / "shared_cpu_list",
          std::to_string(first) + "-" + std::to_string(first + per_l3 - 1));
  }
  // Folders beside the cores that are not cores.
  Write(root / "cpufreq" / "boost", "1");
  Write(root / "cpuidle" / "current_driver", "none");
}

TEST(MachineTest, CountsEachSharedLastLevelCacheOnce) {
  auto dir = MakeTempDir(fs::temp_directory_path(), "machine");
  ASSERT_TRUE(dir.ok());
  WriteCpus(*dir / "eight", 8, 4);  // two groups of four: two L3s
  EXPECT_EQ(TotalLlcBytes(*dir / "eight"), 2 * (size_t{32} << 20));
  WriteCpus(*dir / "two", 2, 2);  // this VM's shape: one L3
  EXPECT_EQ(TotalLlcBytes(*dir / "two"), size_t{32} << 20);
  fs::create_directories(*dir / "bare" / "cpu0");
  EXPECT_EQ(TotalLlcBytes(*dir / "bare"), 0u) << "no cache listed: unknown";
  EXPECT_EQ(TotalLlcBytes(*dir / "missing"), 0u);
  fs::remove_all(*dir);
}

TEST(MachineTest, TheCopyProbeStreamsFromMemoryWithinItsBounds) {
  EXPECT_EQ(CopyProbeBytes(0), size_t{64} << 20) << "unknown: the least";
  EXPECT_EQ(CopyProbeBytes(size_t{32} << 20), size_t{128} << 20);
  EXPECT_EQ(CopyProbeBytes(size_t{1} << 30), size_t{512} << 20) << "a large cache: the most";
}

TEST(MachineTest, TheRealMachineIsMeasuredWithAProbeLargerThanItsCache) {
  MachineInfo m = MeasureMachine();
  EXPECT_GT(m.copy_bandwidth_gbs, 0);
  EXPECT_GT(m.fp32_gflops, 0);
  const size_t total = TotalLlcBytes("/sys/devices/system/cpu");
  if (total == 0) GTEST_SKIP() << "this machine's sysfs lists no caches";
  EXPECT_GE(total, m.llc_bytes) << "the whole machine's cache holds cpu 0's";
  EXPECT_GE(CopyProbeBytes(total), std::min(4 * total, size_t{512} << 20));
}

}  // namespace
}  // namespace hone
