#include "run/memory_plan.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/wording.h"

namespace hone {
namespace {

struct Settings {
  int input_sets;
  int pool_sets;
  bool ref64;
};

// The reference's share of the peak, by where it runs (MemoryDemand::site).
struct ReferenceShare {
  // Held for the whole evaluation.
  int64_t (*resident)(const MemoryDemand& d, const Settings& s);
  // Its buffer slots, beside the candidate arena's.
  int64_t (*arena)(const MemoryDemand& d, const Settings& s);
  // Making one verification set.
  int64_t (*verify)(const MemoryDemand& d, const Settings& s);
  // Timing: the value sets kept in the worker's store, with one repetition's
  // fresh inputs and captured outputs.
  int64_t (*timing)(const MemoryDemand& d, const Settings& s);
  // What its terms add to MemoryPlan::breakdown: after the buffer slots,
  // after the float64 outputs.
  std::string (*slots_text)(const MemoryDemand& d, const Settings& s);
  std::string (*work_text)(const MemoryDemand& d);
  bool pool;  // Settings::pool_sets counts: it keeps a timing pool
};

// A reference program in a sandbox of its own: its arena's slots (whose
// extra slot holds inputs and outputs widened to f64), and the warm-up value
// sets of timing (a slot's worth more than the candidate's).
constexpr ReferenceShare kSandboxShare = {
    [](const MemoryDemand&, const Settings&) -> int64_t { return 0; },
    [](const MemoryDemand& d, const Settings& s) -> int64_t {
      return s.input_sets * (d.inputs + d.outputs) + 2 * d.inputs + d.outputs_f64;
    },
    [](const MemoryDemand&, const Settings&) -> int64_t { return 0; },
    [](const MemoryDemand& d, const Settings& s) -> int64_t {
      return (s.input_sets + 1) * (d.inputs + d.outputs) + d.inputs + 2 * d.outputs;
    },
    [](const MemoryDemand&, const Settings&) { return std::string(); },
    [](const MemoryDemand&) { return std::string(); },
    false,
};

// The oracle: its models (the float64 model is twice the size), its
// float32 and float64 forwards making a verification set, and the timing
// pool, beside which it draws one more set (a PyTorch task's expected
// outputs are the pool's).
constexpr ReferenceShare kOracleShare = {
    [](const MemoryDemand& d, const Settings& s) -> int64_t { return d.model * (s.ref64 ? 3 : 1); },
    [](const MemoryDemand&, const Settings&) -> int64_t { return 0; },
    [](const MemoryDemand& d, const Settings& s) -> int64_t {
      int64_t oracle = d.OracleSetBytes();
      if (s.ref64) oracle = std::max(oracle, 2 * (d.forward_arguments + d.forward_peak));
      return oracle;
    },
    [](const MemoryDemand& d, const Settings& s) -> int64_t {
      return s.pool_sets * (d.inputs + d.outputs) +
             std::max(d.OracleSetBytes(), d.inputs + d.outputs);
    },
    [](const MemoryDemand&, const Settings& s) {
      return " + " + std::to_string(s.pool_sets) + " timing set(s)";
    },
    [](const MemoryDemand& d) {
      return ", one forward " + Gigabytes(d.forward_peak) +
             (d.draw_peak > d.forward_arguments + d.forward_peak
                  ? ", drawing a value set " + Gigabytes(d.draw_peak)
                  : "");
    },
    true,
};

const ReferenceShare& ShareOf(const MemoryDemand& d) {
  switch (d.site) {
    case ReferenceSite::kSandbox:
      return kSandboxShare;
    case ReferenceSite::kOracle:
      return kOracleShare;
  }
  HONE_CHECK(false, "a reference site the memory plan does not know");
  return kSandboxShare;
}

// Held for the whole evaluation: device contexts and flush buffers, the
// candidate's own torch (its copy of the model and its forward's memory,
// which torch's caching allocator keeps), and the reference's.
int64_t Resident(const MemoryDemand& d, const Settings& s) {
  int64_t r = d.processes * d.per_process;
  if (d.compat) r += d.model + d.forward_peak;
  return r + ShareOf(d).resident(d, s);
}

// Buffer slots of the candidate's arena and of the reference's.
int64_t Arenas(const MemoryDemand& d, const Settings& s) {
  int64_t one = s.input_sets * (d.inputs + d.outputs);
  int64_t guards = s.input_sets * d.guards_per_set + d.guards_fixed;
  return one + guards + ShareOf(d).arena(d, s);
}

// One value set in the worker's store: its inputs, expected outputs and
// float64 outputs.
int64_t VerifySetBytes(const MemoryDemand& d, const Settings& s) {
  return d.inputs + d.outputs + (s.ref64 ? d.outputs_f64 : 0);
}

// One value set checked: the set, then either the reference making it or
// the candidate's runs checked beside it. The runs' inputs and outputs are
// checked where they lie (VerifyStage::RunTwice; two runs compared by
// fingerprints); only a store without device memory captures an output to
// compare it (TrustedStore::CompareInArena's default), one at a time.
// The store gives its cached memory back before each oracle set
// (OracleReference::Reference), so a capture and the oracle's forward take
// turns, unless keeping both raises no peak (VerifyPeakKeepingCaches).
int64_t VerifyPeak(const MemoryDemand& d, const Settings& s) {
  return Arenas(d, s) + VerifySetBytes(d, s) + std::max(ShareOf(d).verify(d, s), d.outputs) +
         Resident(d, s);
}

// Timing: the reference's value sets (the oracle's resident pool, or the
// native reference's warm-up sets), plus one repetition's fresh inputs and
// captured outputs.
int64_t TimePeak(const MemoryDemand& d, const Settings& s) {
  return Arenas(d, s) + ShareOf(d).timing(d, s) + Resident(d, s);
}

int64_t Peak(const MemoryDemand& d, const Settings& s) {
  return std::max(VerifyPeak(d, s), TimePeak(d, s));
}

// VerifyPeak when the worker's store and the oracle keep their cached
// memory from one value set to the next: a capture sits beside the
// oracle's forward instead of taking turns with it.
int64_t VerifyPeakKeepingCaches(const MemoryDemand& d, const Settings& s) {
  return Arenas(d, s) + VerifySetBytes(d, s) + ShareOf(d).verify(d, s) + d.outputs + Resident(d, s);
}

// Preference order: the pool shrinks first, then the slots, then the
// float64 reference goes, and last the pool's second set. Two pool sets,
// one per value distribution, let checked calls look like unchecked ones
// (scaled values); a pool of one set is the last resort that lets a problem
// whose value set is a tenth of the device run at all (level1/33_BatchNorm's
// 8.6 GB set: 41.9 GB with two, 33.3 GB with one), and the verdict says so.
std::vector<Settings> Candidates(int max_input_sets, int max_pool_sets) {
  std::vector<Settings> out;
  for (int k = max_pool_sets; k >= 2; k -= 2) out.push_back({max_input_sets, k, true});
  for (int s = max_input_sets - 1; s >= 1; --s) out.push_back({s, 2, true});
  out.push_back({1, 2, false});
  out.push_back({1, 1, false});
  return out;
}

}  // namespace

MemoryDemand DemandOf(const Task& task, const std::vector<CaseShapes>& cases, bool device,
                      bool compat) {
  const ReferenceKind& kind = KindOf(task);
  const size_t forward_arguments = kind.inputs().ForwardArguments(task);
  MemoryDemand d;
  int64_t large_tensors = 0;  // of the case chosen
  for (const auto& cs : cases) {
    MemoryDemand c;
    int64_t large = 0;
    auto count_large = [&](int64_t bytes) {
      large += bytes >= static_cast<int64_t>(kLargeTensorAlign);
    };
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      int64_t b = NumElements(cs.inputs[i]) * static_cast<int64_t>(DtypeSize(task.inputs[i].dtype));
      count_large(b);
      c.inputs += b;
      if (i < forward_arguments) c.forward_arguments += b;
    }
    for (size_t i = 0; i < task.outputs.size(); ++i) {
      int64_t n = NumElements(cs.outputs[i]);
      count_large(n * static_cast<int64_t>(DtypeSize(task.outputs[i].dtype)));
      c.outputs += n * static_cast<int64_t>(DtypeSize(task.outputs[i].dtype));
      c.outputs_f64 += n * static_cast<int64_t>(DtypeSize(Widen(task.outputs[i].dtype, true)));
    }
    if (c.inputs + c.outputs > d.inputs + d.outputs) {
      d = c;
      large_tensors = large;
    }
  }
  d.site = kind.site();
  d.compat = compat;
  // Each tensor: its guard and its rounding; a large one, at most the
  // padding that starts it on a kLargeTensorAlign boundary (process/arena.h).
  d.guards_per_set =
      static_cast<int64_t>((task.inputs.size() + task.outputs.size()) * (kGuardBytes + 255)) +
      large_tensors * static_cast<int64_t>(kLargeTensorAlign);
  d.guards_fixed = static_cast<int64_t>(kGuardBytes + kTailGuardBytes);
  const ReferenceMemory held = kind.inputs().Memory(task);
  d.forward_peak = held.forward_peak;
  d.draw_peak = held.draw_peak;
  d.model = held.model;
  // The worker, the candidate's sandbox and either the reference's sandbox
  // or the oracle each hold a device context (and a sandbox its flush buffer).
  d.processes = 3;
  d.per_process = device ? kDeviceBytesPerProcess : 0;
  return d;
}

int64_t AvailableHostMemory() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kb = 0;
    fields >> kb;
    return kb * 1024;
  }
  return 0;
}

std::string MemoryPlan::Explain() const {
  return "needs " + Gigabytes(peak) + " at least (" + breakdown + "), " + Gigabytes(free) + " free";
}

MemoryPlan PlanMemory(const MemoryDemand& d, int64_t free, int max_input_sets, int max_pool_sets) {
  max_input_sets = std::max(1, max_input_sets);
  max_pool_sets = std::max(2, max_pool_sets);  // the pool's last rung is Candidates' own
  std::vector<Settings> options = Candidates(max_input_sets, max_pool_sets);
  Settings chosen = options.back();
  for (const Settings& s : options)
    if (free <= 0 || Peak(d, s) <= free) {
      chosen = s;
      break;
    }
  MemoryPlan p;
  p.input_sets = chosen.input_sets;
  p.pool_sets = chosen.pool_sets;
  p.ref64 = chosen.ref64;
  p.peak = Peak(d, chosen);
  p.free = free;
  p.fits = free <= 0 || p.peak <= free;
  p.verify_keeps_caches = VerifyPeakKeepingCaches(d, chosen) <= p.peak;
  const ReferenceShare& share = ShareOf(d);
  p.breakdown = "value set " + Gigabytes(d.inputs + d.outputs) + " x " +
                std::to_string(chosen.input_sets) + " buffer slot(s)" +
                share.slots_text(d, chosen) +
                (chosen.ref64 ? ", float64 outputs " + Gigabytes(d.outputs_f64) : "") +
                share.work_text(d) + ", model " + Gigabytes(d.model) + ", " +
                std::to_string(d.processes) + " processes x " + Gigabytes(d.per_process);
  if (chosen.pool_sets < max_pool_sets && share.pool)
    p.shrunk.push_back("timing pool of " +
                       (chosen.pool_sets == 1
                            ? std::string("1 value set (get_inputs() alone: checked calls see "
                                          "no scaled distribution)")
                            : std::to_string(chosen.pool_sets) + " value sets") +
                       ", not " + std::to_string(max_pool_sets));
  if (chosen.input_sets < max_input_sets)
    p.shrunk.push_back(std::to_string(chosen.input_sets) +
                       " buffer slot(s) rotated during timing, not " +
                       std::to_string(max_input_sets));
  if (!chosen.ref64) p.shrunk.push_back("no float64 precision reference");
  return p;
}

}  // namespace hone
