#include "tools/cpu_counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "measure/profile.h"

namespace hone {
namespace {

struct EventSpec {
  const char* name;
  uint32_t type;
  uint64_t config;
};

constexpr EventSpec kEvents[] = {
    {metric::kCyclesMetric, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {metric::kInstructions, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {metric::kCacheReferences, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {metric::kCacheMisses, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {metric::kBranchMisses, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {metric::kPageFaults, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {metric::kContextSwitches, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
};

int OpenEvent(const EventSpec& e, pid_t tid, bool exclude_kernel) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.disabled = 1;
  attr.exclude_kernel = exclude_kernel;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string Why(int err, uint32_t type) {
  if (type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV))
    return std::string("no hardware counters on this machine (perf_event_open: ") +
           std::strerror(err) + ")";
  if (err == EACCES || err == EPERM)
    return std::string("not permitted (perf_event_open: ") + std::strerror(err) +
           "; see /proc/sys/kernel/perf_event_paranoid)";
  return std::string("perf_event_open: ") + std::strerror(err);
}

std::vector<pid_t> Threads(pid_t pid) {
  std::vector<pid_t> tids;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    tids.push_back(static_cast<pid_t>(std::atoi(e.path().filename().c_str())));
  return tids;
}

}  // namespace

CpuCounters::~CpuCounters() {
  for (auto& c : counters_)
    for (int fd : c.fds) close(fd);
}

bool CpuCounters::Open(pid_t pid) {
  std::vector<pid_t> tids = Threads(pid);
  if (tids.empty()) {
    missing_.push_back("all: the process's threads cannot be listed");
    return false;
  }
  std::vector<std::pair<std::string, std::string>> refused;  // reason, counters
  for (const EventSpec& e : kEvents) {
    Counter c{e.name, {}};
    int err = 0;
    for (pid_t tid : tids) {
      // Kernel time too where allowed (page faults are the kernel's work).
      int fd = OpenEvent(e, tid, false);
      if (fd < 0 && (errno == EACCES || errno == EPERM)) fd = OpenEvent(e, tid, true);
      if (fd < 0 && errno == ESRCH) continue;  // the thread has ended
      if (fd < 0) {
        err = errno;
        break;
      }
      c.fds.push_back(fd);
    }
    if (err) {
      for (int fd : c.fds) close(fd);
      std::string why = Why(err, e.type);
      auto same = std::find_if(refused.begin(), refused.end(),
                               [&](const auto& r) { return r.first == why; });
      if (same == refused.end())
        refused.push_back({why, e.name});
      else
        same->second += std::string(", ") + e.name;
      continue;
    }
    counters_.push_back(std::move(c));
  }
  for (const auto& [why, names] : refused) missing_.push_back(names + ": " + why);
  return !counters_.empty();
}

void CpuCounters::Start() {
  for (auto& c : counters_)
    for (int fd : c.fds) {
      ioctl(fd, PERF_EVENT_IOC_RESET, 0);
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    }
}

void CpuCounters::Stop() {
  for (auto& c : counters_)
    for (int fd : c.fds) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

std::map<std::string, double> CpuCounters::Read() const {
  std::map<std::string, double> out;
  for (const auto& c : counters_) {
    double total = 0;
    for (int fd : c.fds) {
      uint64_t v[3] = {0, 0, 0};  // value, time enabled, time running
      if (read(fd, v, sizeof v) != static_cast<ssize_t>(sizeof v)) continue;
      double scale = v[2] > 0 && v[1] > v[2] ? static_cast<double>(v[1]) / v[2] : 1;
      total += static_cast<double>(v[0]) * scale;
    }
    out[c.name] = total;
  }
  return out;
}

}  // namespace hone
