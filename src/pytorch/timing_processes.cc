#include "pytorch/timing_processes.h"

#include <algorithm>
#include <cstdio>

#include "core/wording.h"
#include "measure/stats.h"

namespace hone {

int TimingProcesses(const EvalOptions& options, double median) {
  if (!(median > 0) || median >= options.short_call_seconds) return 1;
  const int processes = std::max(1, options.short_call_processes);
  // The offset is about the same in nanoseconds whatever the call, so it
  // weighs twice as much below half the threshold.
  if (processes > 1 && median < options.short_call_seconds / 2)
    return std::min(kMaxShortCallProcesses, 2 * processes);
  return processes;
}

TimingResult PoolTimings(const std::vector<TimingResult>& processes) {
  TimingResult pooled;
  if (processes.empty()) return pooled;
  std::vector<double> overheads;
  for (const TimingResult& p : processes) {
    pooled.samples.insert(pooled.samples.end(), p.samples.begin(), p.samples.end());
    overheads.push_back(p.call_overhead);
  }
  pooled.summary = Summarize(pooled.samples);
  pooled.call_overhead = Summarize(overheads).median;
  return pooled;
}

void PoolBaselineTimings(BaselineTiming& first, const std::vector<BaselineTiming>& more) {
  double host = first.host_seconds_per_launch;
  int hosts = host > 0 ? 1 : 0;
  for (const BaselineTiming& m : more) {
    if (!m.available) continue;
    first.samples.insert(first.samples.end(), m.samples.begin(), m.samples.end());
    first.warmup_calls += m.warmup_calls;
    first.held = first.held && m.held;
    if (m.host_seconds_per_launch > 0) {
      host += m.host_seconds_per_launch;
      ++hosts;
    }
  }
  first.median = Summarize(first.samples).median;
  first.host_seconds_per_launch = hosts > 0 && first.held ? host / hosts : 0;
}

std::string TimingProcessesNote(const std::string& who, const std::vector<double>& medians,
                                double pooled_median, double short_call_seconds) {
  // Two decimals: the offsets are a few percent of a few microseconds.
  std::string each;
  for (double m : medians) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f us", m * 1e6);
    each += (each.empty() ? "" : ", ") + std::string(buf);
  }
  return who + " timed in " + std::to_string(medians.size()) + " sandbox processes (medians " +
         each + "), samples pooled: its calls take " + Seconds(pooled_median) + ", under " +
         Seconds(short_call_seconds) +
         ", where each process adds an offset of its own (up to 3% from one CUDA context to "
         "the next on an H200; --short-call-processes)";
}

}  // namespace hone
