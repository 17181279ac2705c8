#include "tools/ncu_profile.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "core/file_lock.h"
#include "core/fs.h"
#include "core/subprocess.h"
#include "tools/cuda_tools.h"

namespace hone {
namespace {

// How a metric of a kernel launch combines into a kernel's and the call's.
enum class Combine {
  kSum,       // counts: bytes, conflicts, time
  kWeighted,  // rates and shares: weighted by duration
  kLongest,   // launch configuration: the longest launch's
};

struct NcuMetric {
  std::string ncu;
  std::string name;
  Combine combine;
  double scale = 1;
};

const std::vector<NcuMetric>& Metrics() {
  static const std::vector<NcuMetric> metrics = [] {
    std::vector<NcuMetric> m = {
        {"gpu__time_duration.sum", metric::kDuration, Combine::kSum, 1e-3},
        {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", metric::kMemorySol,
         Combine::kWeighted},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", metric::kComputeSol,
         Combine::kWeighted},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", metric::kDram, Combine::kWeighted},
        {"lts__throughput.avg.pct_of_peak_sustained_elapsed", metric::kL2, Combine::kWeighted},
        {"l1tex__throughput.avg.pct_of_peak_sustained_active", metric::kL1, Combine::kWeighted},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", metric::kOccupancy,
         Combine::kWeighted},
        {"sm__maximum_warps_per_active_cycle_pct", metric::kTheoreticalOccupancy,
         Combine::kLongest},
        {"launch__waves_per_multiprocessor", metric::kWaves, Combine::kLongest},
        {"launch__registers_per_thread", metric::kRegisters, Combine::kLongest},
        {"launch__shared_mem_per_block_static", metric::kSharedPerBlock, Combine::kLongest},
        {"launch__shared_mem_per_block_dynamic", metric::kSharedPerBlock, Combine::kLongest},
        {"launch__block_size", metric::kBlockSize, Combine::kLongest},
        {"launch__grid_size", metric::kGridSize, Combine::kLongest},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", metric::kBankConflicts,
         Combine::kSum},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", metric::kBankConflicts,
         Combine::kSum},
        {"dram__bytes_read.sum", metric::kDramBytes, Combine::kSum},
        {"dram__bytes_write.sum", metric::kDramBytes, Combine::kSum},
    };
    // Where warps spend their cycles, per issued instruction.
    const std::vector<std::string> stalls = {"long_scoreboard",
                                             "short_scoreboard",
                                             "barrier",
                                             "mio_throttle",
                                             "lg_throttle",
                                             "math_pipe_throttle",
                                             "wait",
                                             "tex_throttle",
                                             "membar",
                                             "branch_resolving",
                                             "no_instruction",
                                             "imc_miss",
                                             "gmma",
                                             "dispatch_stall",
                                             "drain",
                                             "sleeping",
                                             "not_selected",
                                             "selected"};
    for (const std::string& s : stalls)
      m.push_back({"smsp__average_warps_issue_stalled_" + s + "_per_issue_active.ratio",
                   metric::kStallPrefix + s, Combine::kWeighted});
    return m;
  }();
  return metrics;
}

const char* const kLimits[][2] = {{"launch__occupancy_limit_registers", "registers"},
                                  {"launch__occupancy_limit_shared_mem", "shared memory"},
                                  {"launch__occupancy_limit_warps", "warps per SM"},
                                  {"launch__occupancy_limit_blocks", "blocks per SM"}};

const NcuMetric* FindMetric(const std::string& ncu) {
  for (const auto& m : Metrics())
    if (ncu == m.ncu) return &m;
  return nullptr;
}

Combine CombineOf(const std::string& name) {
  for (const auto& m : Metrics())
    if (name == m.name) return m.combine;
  return Combine::kWeighted;
}

// One CSV line, with quoted fields ("a, b" and "" inside quotes).
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::string f;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      f += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(std::move(f));
      f.clear();
    } else if (c != '\r') {
      f += c;
    }
  }
  fields.push_back(std::move(f));
  return fields;
}

bool ParseValue(std::string text, double* out) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end) return false;
  *out = v;
  return true;
}

struct Launch {
  std::string kernel;
  std::map<std::string, double> metrics;
  std::map<std::string, double> limits;  // blocks per SM, by limiter
};

void Add(Launch& l, const std::string& ncu, double value) {
  if (const NcuMetric* m = FindMetric(ncu)) {
    l.metrics[m->name] += value * m->scale;  // two ncu metrics can sum into one
    return;
  }
  for (const auto& [name, label] : kLimits)
    if (ncu == name) l.limits[label] = value;
}

std::string Limiter(const std::map<std::string, double>& limits) {
  std::string best;
  double fewest = 0;
  for (const auto& [name, label] : kLimits) {  // in the order a tie is reported
    auto it = limits.find(label);
    if (it != limits.end() && (best.empty() || it->second < fewest))
      best = label, fewest = it->second;
  }
  return best;
}

double Duration(const std::map<std::string, double>& m) {
  auto it = m.find(metric::kDuration);
  return it == m.end() ? 0 : it->second;
}

// Folds `part` (of duration `weight`) into `total`, whose parts so far
// weigh `before`; `longest` says whether `part` is the longest so far.
void Fold(std::map<std::string, double>& total, const std::map<std::string, double>& part,
          double before, double weight, bool longest) {
  for (const auto& [name, value] : part) {
    double& t = total[name];
    switch (CombineOf(name)) {
      case Combine::kSum:
        t += value;
        break;
      case Combine::kWeighted:
        t = before + weight > 0 ? (t * before + value * weight) / (before + weight) : value;
        break;
      case Combine::kLongest:
        if (longest) t = value;
        break;
    }
  }
}

// Launches of one kernel name into one ProfileKernel, and every kernel into
// the summary, longest first.
void Summarise(const std::vector<Launch>& launches, ProfileReport& report) {
  std::map<std::string, ProfileKernel> by_name;
  std::map<std::string, double> longest_launch;
  for (const Launch& l : launches) {
    ProfileKernel& k = by_name[l.kernel];
    k.name = l.kernel;
    double d = Duration(l.metrics), before = Duration(k.metrics);
    bool longest = d >= longest_launch[l.kernel];
    if (longest) {
      longest_launch[l.kernel] = d;
      k.occupancy_limiter = Limiter(l.limits);
    }
    Fold(k.metrics, l.metrics, before, d, longest);
    ++k.launches;
  }
  for (auto& [name, k] : by_name) report.kernels.push_back(std::move(k));
  std::sort(report.kernels.begin(), report.kernels.end(),
            [](const ProfileKernel& a, const ProfileKernel& b) {
              return Duration(a.metrics) > Duration(b.metrics);
            });
  for (size_t i = 0; i < report.kernels.size(); ++i) {
    const ProfileKernel& k = report.kernels[i];
    Fold(report.summary, k.metrics, Duration(report.summary), Duration(k.metrics), i == 0);
  }
  if (!report.kernels.empty()) report.occupancy_limiter = report.kernels.front().occupancy_limiter;
}

// The first error ncu or the sandbox printed, for ProfileReport::not_run.
std::string FirstError(const std::string& output) {
  std::istringstream in(output);
  std::string line, sandbox;
  while (std::getline(in, line)) {
    if (line.rfind("==ERROR== ", 0) == 0) return line.substr(10);
    if (line.rfind("hone-sandbox: ", 0) == 0 && line.find("call: ok") == std::string::npos)
      sandbox = line.substr(14);
  }
  return sandbox;
}

std::string AskNcuVersion(const std::filesystem::path& ncu) {
  CommandOptions opts;
  opts.timeout = std::chrono::seconds(30);
  auto r = RunCommand({ncu.string(), "--version"}, opts);
  if (!r.ok() || !r->succeeded()) return "ncu";
  std::istringstream in(r->output);
  std::string line, version;
  while (std::getline(in, line))
    if (line.rfind("Version ", 0) == 0) version = line.substr(8, line.find(' ', 8) - 8);
  return version.empty() ? "ncu" : "ncu " + version;
}

// Asked once per ncu per process, not once per profile.
std::string NcuVersion(const std::filesystem::path& ncu) {
  static std::mutex mu;
  static std::map<std::filesystem::path, std::string> known;
  std::lock_guard<std::mutex> lock(mu);
  auto it = known.find(ncu);
  if (it == known.end()) it = known.emplace(ncu, AskNcuVersion(ncu)).first;
  return it->second;
}

// The file of the GPU's profiling lock: one profile per GPU at a time.
std::filesystem::path GpuProfileLockPath(const std::string& pci_bus_id) {
  std::string name = pci_bus_id;
  std::replace(name.begin(), name.end(), ':', '_');
  std::error_code ec;
  return std::filesystem::temp_directory_path(ec) / ("hone-profile-" + name + ".lock");
}

}  // namespace

std::chrono::milliseconds ProfileTimeout() {
  return ToolTimeout("HONE_PROFILE_TIMEOUT", std::chrono::seconds(120));
}

std::vector<std::string> NcuArguments(const NcuJob& job) {
  std::string metrics;
  for (const auto& m : Metrics()) metrics += (metrics.empty() ? "" : ",") + m.ncu;
  for (const auto& [name, label] : kLimits) metrics += "," + std::string(name);
  std::vector<std::string> args = {job.ncu.string(),     "--csv",
                                   "--print-units",      "base",
                                   "--log-file",         (job.report_dir / "ncu.csv").string(),
                                   "--target-processes", "all",
                                   "--launch-count",     std::to_string(job.max_kernels),
                                   "--metrics",          metrics};
  if (job.between_profiler_marks) {
    args.push_back("--profile-from-start");
    args.push_back("off");
  }
  return args;
}

Status ReadNcuCsv(const std::string& output, ProfileReport& report) {
  std::istringstream in(output);
  std::string line;
  std::map<std::string, size_t> column;
  std::map<std::string, Launch> launches;  // by ncu's launch ID
  std::vector<std::string> order;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;
    std::vector<std::string> f = SplitCsv(line);
    if (column.empty()) {
      for (size_t i = 0; i < f.size(); ++i) column[f[i]] = i;
      for (const char* need : {"ID", "Kernel Name", "Metric Name", "Metric Value"})
        if (!column.count(need)) return Status::Invalid(std::string("ncu's CSV has no ") + need);
      continue;
    }
    auto at = [&](const char* name) {
      size_t i = column[name];
      return i < f.size() ? f[i] : std::string();
    };
    double value;
    if (!ParseValue(at("Metric Value"), &value)) continue;  // "n/a"
    std::string id = at("ID");
    if (!launches.count(id)) order.push_back(id);
    Launch& l = launches[id];
    l.kernel = at("Kernel Name");
    Add(l, at("Metric Name"), value);
  }
  if (launches.empty()) return Status::Invalid("ncu measured no kernel");
  std::vector<Launch> in_order;
  for (const auto& id : order) in_order.push_back(launches[id]);
  report.calls = 1;
  Summarise(in_order, report);
  return Status::Ok();
}

std::vector<std::string> NcuCommand(const NcuJob& job) {
  // The call's own environment too: a ModelNew's shim needs its Python's,
  // and marks its forward for ncu only when told to (HONE_PROFILE_FORWARD);
  // without it ncu, waiting for the marks, measured no kernel.
  std::vector<std::string> argv = StandaloneEnvironment(job.call);
  for (const auto& a : NcuArguments(job)) argv.push_back(a);
  StandaloneCall call = job.call;
  for (const char* relax : {"--no-seccomp", "--no-landlock", "--no-netns"})
    call.confinement.push_back(relax);
  for (const auto& a : StandaloneCommand(call)) argv.push_back(a);
  return argv;
}

ProfileReport RunNcu(const NcuJob& job) {
  ProfileReport report;
  report.tool = NcuVersion(job.ncu);
  std::vector<std::string> argv = NcuCommand(job);
  CommandOptions opts;
  opts.timeout = job.timeout;
  opts.cwd = job.call.scratch.string();
  FileLock lock(GpuProfileLockPath(job.call.pci_bus_id), job.timeout);
  if (!lock.held()) {
    report.not_run = "another profile held this GPU for longer than the profile may take";
    return report;
  }
  auto r = RunCommand(argv, opts);
  if (!r.ok()) {
    report.not_run = r.status().message();
    return report;
  }
  report.seconds = r->seconds;
  if (r->timed_out) {
    report.not_run = "ncu timed out after " + std::to_string(job.timeout.count() / 1000) + " s";
    return report;
  }
  auto log = ReadFile(job.report_dir / "ncu.csv");
  std::string ncu_said = log.ok() ? *log : "";
  Status read = ReadNcuCsv(ncu_said, report);
  if (!r->succeeded() || !read.ok()) {
    std::string why = FirstError(ncu_said + "\n" + r->output);
    report.not_run =
        why.empty() ? read.ok() ? "ncu exited with " + std::to_string(r->exit_code) : read.message()
                    : why;
    report.kernels.clear();
    report.summary.clear();
  }
  return report;
}

}  // namespace hone
