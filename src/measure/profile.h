// What a profiler measured for one candidate on its timed case, and what
// the judge (measure/profile_judge.h) made of it. On the GPU the metrics are
// Nsight Compute's, per kernel launched by one call (tools/ncu_profile.h); on
// the CPU they are the kernel's perf_event counters over a few calls
// (tools/cpu_counters.h). docs/PROFILING.md lists every metric and why it is
// in the set. A plain value: copyable, no behaviour beyond naming.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hone {

// Metric names as the reports and the prompts show them, one vocabulary for
// both backends (the tools' own names are in docs/PROFILING.md).
namespace metric {
// GPU, per kernel and duration-weighted over the call.
inline constexpr const char* kDuration = "duration_us";
inline constexpr const char* kMemorySol = "memory_sol_pct";    // the busiest memory unit
inline constexpr const char* kComputeSol = "compute_sol_pct";  // the busiest SM pipeline
inline constexpr const char* kDram = "dram_pct";
inline constexpr const char* kL2 = "l2_pct";
inline constexpr const char* kL1 = "l1_pct";
inline constexpr const char* kOccupancy = "achieved_occupancy_pct";
inline constexpr const char* kTheoreticalOccupancy = "theoretical_occupancy_pct";
inline constexpr const char* kWaves = "waves_per_sm";
inline constexpr const char* kRegisters = "registers_per_thread";
inline constexpr const char* kSharedPerBlock = "shared_bytes_per_block";
inline constexpr const char* kBlockSize = "block_size";
inline constexpr const char* kGridSize = "grid_size";
inline constexpr const char* kBankConflicts = "shared_bank_conflicts";
inline constexpr const char* kDramBytes = "dram_bytes";
// The prefix of one warp stall reason's cycles per issued instruction
// ("stall_long_scoreboard").
inline constexpr const char* kStallPrefix = "stall_";
// CPU, per call.
inline constexpr const char* kTaskClock = "cpu_seconds";  // CPU time of every thread
inline constexpr const char* kWallClock = "wall_seconds";
inline constexpr const char* kCyclesMetric = "cycles";
inline constexpr const char* kInstructions = "instructions";
inline constexpr const char* kCacheReferences = "cache_references";
inline constexpr const char* kCacheMisses = "cache_misses";
inline constexpr const char* kBranchMisses = "branch_misses";
inline constexpr const char* kPageFaults = "page_faults";
inline constexpr const char* kContextSwitches = "context_switches";
}  // namespace metric

struct ProfileKernel {
  std::string name;
  int launches = 0;
  std::map<std::string, double> metrics;  // metric:: names
  // Which resource caps the blocks per SM: registers, shared memory, warps
  // or blocks; empty when the tool did not say.
  std::string occupancy_limiter;
  bool operator==(const ProfileKernel&) const = default;
};

struct ProfileDiagnosis {
  // GPU: "near the memory ceiling", "near the compute ceiling",
  // "memory-bound", "compute-bound", "underutilised, memory-bound",
  // "underutilised, compute-bound"; CPU: "near the roofline",
  // "single-threaded", "memory-bound", "compute-bound", "underutilised".
  std::string label;
  std::vector<std::string> evidence;  // the numbers behind the label, one line each
  std::string fix;                    // the likely next step
  bool operator==(const ProfileDiagnosis&) const = default;
};

struct ProfileReport {
  std::string tool;        // "ncu 2025.3.1", "perf_event"
  std::string case_label;  // the timed case
  int calls = 0;           // candidate calls profiled
  // The whole call: GPU metrics weighted by each kernel's duration, CPU
  // counters per call.
  std::map<std::string, double> summary;
  std::vector<ProfileKernel> kernels;  // GPU: by total duration, longest first
  std::string occupancy_limiter;       // the longest kernel's
  ProfileDiagnosis diagnosis;
  // Counters the machine did not give, and why ("cycles: no hardware
  // counters (perf_event_open: ENOENT)"); the report stands without them.
  std::vector<std::string> missing;
  std::string not_run;  // why nothing was measured; empty when it ran
  double seconds = 0;   // what profiling cost, wall time
  bool ran() const { return not_run.empty(); }
  bool operator==(const ProfileReport&) const = default;
};

}  // namespace hone
