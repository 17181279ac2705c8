#include "compat/calling_thread_pin.h"

#include <cerrno>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>

namespace hone {
namespace {

std::mutex& ClaimsMutex() {
  static std::mutex m;
  return m;
}

std::set<int>& Claimed() {
  static std::set<int> claimed;
  return claimed;
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace

Result<std::unique_ptr<CallingThreadPin>> CallingThreadPin::Claim(const std::string& spread) {
  const std::vector<int> cpus = AllowedCpus();
  if (cpus.empty())
    return Status::NotFound(std::string("cannot read this process's CPUs: ") + strerror(errno));
  const size_t n = cpus.size();
  const size_t start = spread.empty() ? 0 : std::hash<std::string>{}(spread) % n;
  std::lock_guard<std::mutex> lock(ClaimsMutex());
  for (size_t i = 0; i < n; ++i) {
    const int cpu = cpus[n - 1 - (start + i) % n];
    if (Claimed().insert(cpu).second)
      return std::unique_ptr<CallingThreadPin>(new CallingThreadPin(cpu));
  }
  return Status::NotFound("every one of this process's " + std::to_string(n) +
                          " CPUs is held by another pin");
}

CallingThreadPin::~CallingThreadPin() {
  for (const Pinned& p : pinned_) sched_setaffinity(p.tid, sizeof p.before, &p.before);
  std::lock_guard<std::mutex> lock(ClaimsMutex());
  Claimed().erase(cpu_);
}

Status CallingThreadPin::Pin(pid_t tid) {
  Pinned p{tid, {}};
  CPU_ZERO(&p.before);
  if (sched_getaffinity(tid, sizeof p.before, &p.before) != 0)
    return Status::Io("cannot read the CPUs of thread " + std::to_string(tid) + ": " +
                      strerror(errno));
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu_, &only);
  if (sched_setaffinity(tid, sizeof only, &only) != 0)
    return Status::Io("cannot pin thread " + std::to_string(tid) + " to CPU " +
                      std::to_string(cpu_) + ": " + strerror(errno));
  pinned_.push_back(p);
  return Status::Ok();
}

std::vector<pid_t> CallingThreadPin::Strayed() const {
  std::vector<pid_t> strayed;
  for (const Pinned& p : pinned_) {
    cpu_set_t now;
    CPU_ZERO(&now);
    if (sched_getaffinity(p.tid, sizeof now, &now) != 0) continue;
    if (CPU_COUNT(&now) != 1 || !CPU_ISSET(cpu_, &now)) strayed.push_back(p.tid);
  }
  return strayed;
}

}  // namespace hone
