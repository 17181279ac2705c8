#include "measure/profile_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace hone {
namespace {

double Get(const std::map<std::string, double>& m, const char* key, double fallback = -1) {
  auto it = m.find(key);
  return it == m.end() ? fallback : it->second;
}

// What a warp stall reason means and what usually removes it. Reasons a
// healthy kernel shows (selected, not_selected) are left out.
struct StallAdvice {
  const char* reason;
  const char* meaning;
  const char* fix;
};
constexpr StallAdvice kStalls[] = {
    {"long_scoreboard", "warps wait on global memory loads",
     "coalesce the loads (neighbouring threads on neighbouring addresses), widen them (float4) "
     "and keep more of them in flight per thread"},
    {"short_scoreboard", "warps wait on shared memory or special-function results",
     "fewer shared-memory round trips; pad shared arrays against bank conflicts"},
    {"barrier", "warps wait at __syncthreads", "fewer barriers; warp shuffles for reductions"},
    {"mio_throttle", "the shared-memory instruction queue is full",
     "fewer, wider shared-memory accesses"},
    {"lg_throttle", "the global-memory instruction queue is full",
     "fewer, wider global accesses (float4), data reused from registers"},
    {"math_pipe_throttle", "an arithmetic pipe is saturated",
     "tensor cores (mma/wgmma) or cheaper math where the tolerance allows"},
    {"wait", "warps wait on fixed-latency dependencies",
     "more independent instructions per thread (unrolling, ILP)"},
    {"tex_throttle", "the texture/L1 pipe is saturated", "fewer L1 accesses per element"},
    {"membar", "warps wait on memory fences", "fewer fences or atomics"},
    {"branch_resolving", "warps wait on branch targets", "fewer divergent branches"},
    {"no_instruction", "warps wait for instructions to be fetched",
     "less unrolled or duplicated code"},
    {"imc_miss", "warps wait on the constant cache", "uniform constant accesses"},
    {"gmma", "warps wait on wgmma", "deeper pipelining of the wgmma stages"},
    {"dispatch_stall", "the dispatcher stalls", ""},
    {"drain", "warps wait for memory writes to drain at exit", ""},
    {"sleeping", "warps sleep", ""},
};

const StallAdvice* FindStall(const std::string& reason) {
  for (const auto& s : kStalls)
    if (reason == s.reason) return &s;
  return nullptr;
}

// The biggest stall reason the table explains, with its cycles per issue.
std::pair<const StallAdvice*, double> TopStall(const std::map<std::string, double>& m) {
  const StallAdvice* top = nullptr;
  double most = 0;
  const std::string prefix = metric::kStallPrefix;
  for (const auto& [key, value] : m) {
    if (key.rfind(prefix, 0) != 0) continue;
    const StallAdvice* s = FindStall(key.substr(prefix.size()));
    if (s && value > most) top = s, most = value;
  }
  return {top, most};
}

std::string WholePercent(double v) { return fmt::format("{:.0f}%", v); }

struct GpuReading {
  double mem, compute, dram, l2, l1, occupancy, theoretical, waves, conflicts, grid, dram_bytes;
};

GpuReading ReadGpu(const std::map<std::string, double>& s) {
  return {Get(s, metric::kMemorySol, 0),
          Get(s, metric::kComputeSol, 0),
          Get(s, metric::kDram),
          Get(s, metric::kL2),
          Get(s, metric::kL1),
          Get(s, metric::kOccupancy),
          Get(s, metric::kTheoreticalOccupancy),
          Get(s, metric::kWaves),
          Get(s, metric::kBankConflicts, 0),
          Get(s, metric::kGridSize),
          Get(s, metric::kDramBytes, 0)};
}

void AddSolEvidence(const GpuReading& g, const JudgeContext& c, ProfileDiagnosis& d) {
  std::string units;
  for (auto [name, v] : {std::pair{"DRAM", g.dram}, {"L2", g.l2}, {"L1", g.l1}})
    if (v >= 0) units += std::string(units.empty() ? "" : ", ") + name + " " + WholePercent(v);
  if (units.empty()) units = "memory " + WholePercent(g.mem);
  d.evidence.push_back(
      fmt::format("throughput as a share of peak: {}; SMs {}", units, WholePercent(g.compute)));
  if (c.sol_percent > 0)
    d.evidence.push_back(fmt::format("hone's timing puts it at {} of the task's speed of light",
                                     WholePercent(c.sol_percent)));
}

// Why a kernel keeps neither memory nor the SMs busy, with a fix per cause.
void ExplainUnderuse(const GpuReading& g, const ProfileReport& r, const JudgeContext& c,
                     ProfileDiagnosis& d, std::vector<std::string>& fixes) {
  if (g.grid > 0 && c.cores > 0 && g.grid < c.cores) {
    d.evidence.push_back(fmt::format("the grid ({:.0f} blocks) leaves {:.0f} of the {} SMs idle",
                                     g.grid, c.cores - g.grid, c.cores));
    fixes.push_back("launch enough blocks to fill every SM several times (split the work finer)");
  } else if (g.grid > 0 && g.waves >= 0 && g.waves < 1) {
    d.evidence.push_back(fmt::format(
        "the grid ({:.0f} blocks) is {:.2f} of a full wave: each SM holds few warps to hide "
        "latency with",
        g.grid, g.waves));
    fixes.push_back("more warps per SM: more, smaller blocks of work");
  }
  if (g.theoretical >= 0 && g.theoretical < 50 && !r.occupancy_limiter.empty()) {
    d.evidence.push_back(fmt::format("occupancy is capped at {} by {}", WholePercent(g.theoretical),
                                     r.occupancy_limiter));
    fixes.push_back("lift the occupancy cap (" + r.occupancy_limiter +
                    "): fewer registers or less shared memory per block");
  } else if (g.occupancy >= 0 && g.occupancy < 25) {
    d.evidence.push_back(fmt::format("achieved occupancy {}", WholePercent(g.occupancy)));
  }
}

// Caches far busier than DRAM: scattered accesses fetch whole lines for a
// few bytes each, or shared memory serialises on bank conflicts.
void ExplainCacheTraffic(const GpuReading& g, ProfileDiagnosis& d,
                         std::vector<std::string>& fixes) {
  if (g.l1 < 0 || g.dram < 0 || g.l1 <= 2 * std::max(g.dram, 10.0)) return;
  d.evidence.push_back(
      fmt::format("L1 is busy ({}) while DRAM is not ({}): each warp touches many cache lines",
                  WholePercent(g.l1), WholePercent(g.dram)));
  fixes.push_back("coalesce: neighbouring threads should read neighbouring addresses");
}

// Whether a fix already given says `word`: one coalescing fix, not two.
bool Says(const std::vector<std::string>& fixes, const std::string& word) {
  for (const auto& f : fixes)
    if (f.find(word) != std::string::npos) return true;
  return false;
}

void AddStallEvidence(const ProfileReport& r, ProfileDiagnosis& d, std::vector<std::string>& fixes,
                      bool with_fix) {
  auto [stall, cycles] = TopStall(r.summary);
  if (!stall || cycles < 1) return;
  d.evidence.push_back(
      fmt::format("top stall: {} ({:.1f} cycles per issued instruction)", stall->meaning, cycles));
  std::string fix = stall->fix;
  if (!with_fix || fix.empty()) return;
  if (fix.find("coalesce") != std::string::npos && Says(fixes, "coalesce")) return;
  fixes.push_back(fix);
}

std::string JoinFixes(const std::vector<std::string>& fixes) {
  std::string out;
  for (size_t i = 0; i < fixes.size() && i < 3; ++i) out += (i ? "; " : "") + fixes[i];
  return out;
}

void NearMemoryCeiling(const GpuReading& g, const JudgeContext& c, ProfileDiagnosis& d,
                       std::vector<std::string>& fixes) {
  d.label = "near the memory ceiling";
  bool counted = c.ideal_bytes > 0 && g.dram_bytes > 0;
  if (counted && g.dram_bytes > 1.5 * c.ideal_bytes)
    d.evidence.push_back(fmt::format("DRAM traffic is {:.1f}x the bytes the task must move",
                                     g.dram_bytes / c.ideal_bytes));
  else if (!counted && c.sol_percent > 0 && c.sol_percent < 60)
    d.evidence.push_back(
        "DRAM streams near its peak, yet the call takes longer than the task's "
        "bytes need: it moves more bytes than the task must");
  fixes.push_back(
      "move fewer bytes: fuse passes, keep rows in registers or shared memory, never "
      "re-read from DRAM");
}

void NearComputeCeiling(const JudgeContext& c, ProfileDiagnosis& d,
                        std::vector<std::string>& fixes) {
  d.label = "near the compute ceiling";
  if (c.sol_percent > 0 && c.sol_percent < 25)
    d.evidence.push_back(
        "the SMs are busy, yet the call is far from the task's speed of light: it issues far "
        "more instructions than the task's flops need (index arithmetic, redundant loads, "
        "scalar FMA where tensor cores apply)");
  fixes.push_back(
      "fewer instructions per element: tensor cores (mma/wgmma), hoisted index "
      "arithmetic, data reused from registers");
}

// The roofline read on DRAM's share (the memory roof a kernel can be near)
// and the SMs' share. ncu's own memory share is the busiest memory unit,
// often L1 for scattered accesses that DRAM barely sees, so it only says
// which kind of work an underutilised kernel is short of.
ProfileDiagnosis JudgeGpu(const ProfileReport& r, const JudgeContext& c) {
  ProfileDiagnosis d;
  GpuReading g = ReadGpu(r.summary);
  AddSolEvidence(g, c, d);
  std::vector<std::string> fixes;
  double dram = g.dram >= 0 ? g.dram : g.mem;
  bool memory_work = g.mem >= g.compute;
  bool near = false;
  bool at_memory_speed = c.sol_percent >= kNearSolPct && dram >= kUnderutilisedPct;
  if ((dram >= kNearCeilingPct || at_memory_speed) && dram >= g.compute) {
    NearMemoryCeiling(g, c, d, fixes);
    near = true;
  } else if (g.compute >= kNearCeilingPct) {
    NearComputeCeiling(c, d, fixes);
    near = true;
  } else if (dram < kUnderutilisedPct && g.compute < kUnderutilisedPct) {
    d.label = memory_work ? "underutilised, memory-bound" : "underutilised, compute-bound";
    ExplainUnderuse(g, r, c, d, fixes);
    ExplainCacheTraffic(g, d, fixes);
  } else {
    d.label = dram >= g.compute ? "memory-bound" : "compute-bound";
    ExplainUnderuse(g, r, c, d, fixes);
    ExplainCacheTraffic(g, d, fixes);
  }
  if (g.conflicts > 0)
    d.evidence.push_back(fmt::format("{:.0f} shared-memory bank conflicts", g.conflicts));
  // Near a ceiling, what warps wait on is the ceiling itself.
  AddStallEvidence(r, d, fixes, !near);
  bool memory_advice =
      near ? d.label == "near the memory ceiling" : dram >= g.compute || memory_work;
  if (fixes.empty())
    fixes.push_back(memory_advice ? "coalesce and widen accesses, reuse data on chip"
                                  : "fewer instructions per element, tensor cores where they "
                                    "apply");
  d.fix = JoinFixes(fixes);
  return d;
}

// Busy cores per call under which a call ran on one thread: a little above
// 1 for the sandbox's own work around the call. A parallel kernel on a
// loaded machine may keep fewer than all its cores busy, but more than this.
constexpr double kOneCore = 1.1;

ProfileDiagnosis JudgeCpu(const ProfileReport& r, const JudgeContext& c) {
  ProfileDiagnosis d;
  std::vector<std::string> fixes;
  double cpu = Get(r.summary, metric::kTaskClock), wall = Get(r.summary, metric::kWallClock);
  double cycles = Get(r.summary, metric::kCyclesMetric);
  double instructions = Get(r.summary, metric::kInstructions);
  double refs = Get(r.summary, metric::kCacheReferences);
  double misses = Get(r.summary, metric::kCacheMisses);
  double faults = Get(r.summary, metric::kPageFaults);
  double ipc = cycles > 0 && instructions >= 0 ? instructions / cycles : -1;
  double miss_rate = refs > 0 && misses >= 0 ? misses / refs : -1;
  if (c.sol_percent > 0)
    d.evidence.push_back(fmt::format("hone's timing puts it at {} of the task's speed of light",
                                     WholePercent(c.sol_percent)));
  // Under a millisecond per call the sandbox's own work around the call
  // outweighs the kernel's, and busy cores would say nothing about it.
  double threads = cpu > 0 && wall >= 1e-3 ? cpu / wall : -1;
  if (threads > 0)
    d.evidence.push_back(fmt::format("busy cores per call: {:.1f} of {}", threads, c.cores));
  if (ipc >= 0) d.evidence.push_back(fmt::format("{:.2f} instructions per cycle", ipc));
  if (miss_rate >= 0)
    d.evidence.push_back(fmt::format("{} of cache references miss", WholePercent(100 * miss_rate)));
  if (faults > 8)
    d.evidence.push_back(
        fmt::format("{:.0f} page faults per call: memory is allocated or "
                    "first touched inside the call",
                    faults));
  if (c.sol_percent >= kNearCeilingPct) {
    d.label = "near the roofline";
    fixes.push_back("do less work or move fewer bytes; the machine is nearly saturated");
  } else if (c.cores > 1 && threads > 0 && threads < kOneCore) {
    d.label = "single-threaded";
    fixes.push_back(fmt::format("parallelise the outer loop over the {} cores (OpenMP)", c.cores));
  } else if (miss_rate >= 0.2 || (ipc >= 0 && ipc < 1)) {
    d.label = "memory-bound";
    fixes.push_back("walk memory contiguously, block the loops for the cache, reuse loaded data");
  } else if (ipc >= 2) {
    d.label = "compute-bound";
    fixes.push_back("vectorise the inner loop (SIMD) and cut instructions per element");
  } else {
    d.label = "underutilised";
    fixes.push_back("vectorise the inner loop and keep every core busy");
  }
  if (faults > 8) fixes.push_back("allocate once, outside the call (the workspace)");
  d.fix = JoinFixes(fixes);
  return d;
}

}  // namespace

ProfileDiagnosis JudgeProfile(const ProfileReport& report, const JudgeContext& context) {
  if (!report.ran()) return {};
  return context.host_counters ? JudgeCpu(report, context) : JudgeGpu(report, context);
}

std::string DiagnosisText(const ProfileReport& report) {
  if (!report.ran() || report.diagnosis.label.empty()) return "";
  std::string out =
      "profiler (" + report.tool + ", " + report.case_label + "): " + report.diagnosis.label + "\n";
  for (const auto& e : report.diagnosis.evidence) out += "- " + e + "\n";
  if (!report.diagnosis.fix.empty()) out += "likely fix: " + report.diagnosis.fix + "\n";
  return out;
}

}  // namespace hone
