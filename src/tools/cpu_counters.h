// perf_event counters of every thread of one process (a CPU candidate's
// sandbox), opened by the worker from outside it: cycles, instructions,
// cache references and misses, branch misses (hardware), page faults and
// context switches (software), user space only where the kernel allows no
// more (perf_event_paranoid). Counters the machine does not give (a VM
// without a virtual PMU has no hardware counters) are listed with the
// reason, and the rest still count. Threads the process starts after Open
// are not counted.
//
// Owns its descriptors; closed on destruction. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace hone {

class CpuCounters {
 public:
  CpuCounters() = default;
  CpuCounters(const CpuCounters&) = delete;
  CpuCounters& operator=(const CpuCounters&) = delete;
  ~CpuCounters();

  // Opens every counter on every thread of `pid`, stopped. False when not
  // one counter could be opened (`missing()` says why).
  bool Open(pid_t pid);
  void Start();  // from zero
  void Stop();
  // Each counter summed over the threads (metric:: names of
  // measure/profile.h), scaled up where the kernel multiplexed it.
  std::map<std::string, double> Read() const;
  // One line per reason: "cycles, instructions: no hardware counters on
  // this machine (perf_event_open: ...)"
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  struct Counter {
    std::string name;
    std::vector<int> fds;  // one per thread
  };
  std::vector<Counter> counters_;
  std::vector<std::string> missing_;
};

}  // namespace hone
