#include "process/proc_usage.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace hone {
namespace {

// The /proc directories of a live process's threads.
std::vector<std::filesystem::path> ThreadDirs(pid_t pid) {
  std::vector<std::filesystem::path> out;
  if (pid <= 0) return out;
  std::error_code ec;
  for (const auto& t :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    out.push_back(t.path());
  return out;
}

// The first bytes of a small /proc file ("" when it cannot be read).
std::string ReadProcFile(const std::filesystem::path& p) {
  FILE* f = std::fopen(p.c_str(), "r");
  if (!f) return "";
  char buf[512];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  return std::string(buf, n);
}

// The state letter of a /proc stat line: "tid (comm) S ..." (comm may hold ')').
char ThreadState(const std::string& stat) {
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
}

}  // namespace

uint64_t ThreadsCpuNanos(pid_t pid) {
  uint64_t total = 0;
  for (const auto& t : ThreadDirs(pid))
    total += std::strtoull(ReadProcFile(t / "schedstat").c_str(), nullptr, 10);
  return total;
}

uint64_t SettledThreadsCpuNanos(pid_t pid) {
  std::filesystem::path main = "/proc/" + std::to_string(pid);
  auto ran = [&] { return std::strtoull(ReadProcFile(main / "schedstat").c_str(), nullptr, 10); };
  const uint64_t start = ran();
  constexpr uint64_t kMostRun = 1'000'000;  // ns of the main thread's CPU time
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  while (ThreadState(ReadProcFile(main / "stat")) == 'R' && ran() - start < kMostRun &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  return ThreadsCpuNanos(pid);
}

int RunnableThreadsBesidesMain(pid_t pid) {
  int runnable = 0;
  for (const auto& t : ThreadDirs(pid)) {
    if (t.filename() == std::to_string(pid)) continue;  // the main thread
    if (ThreadState(ReadProcFile(t / "stat")) == 'R') ++runnable;
  }
  return runnable;
}

size_t ResidentBytes(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/statm").c_str(), "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace hone
