#include "measure/machine.h"

#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/fs.h"
#include "core/json_text.h"

namespace hone {

bool operator==(const MachineInfo&, const MachineInfo&) = default;

namespace {

using Clock = std::chrono::steady_clock;

std::string ReadCpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(pos + 2);
    }
  return "unknown CPU";
}

// The highest cache index of `cpu` (its last level): "index3" on most x86.
std::filesystem::path LastLevelCache(const std::filesystem::path& cpu) {
  for (int idx = 5; idx >= 0; --idx) {
    std::filesystem::path p = cpu / "cache" / ("index" + std::to_string(idx));
    std::error_code ec;
    if (std::filesystem::exists(p / "size", ec)) return p;
  }
  return {};
}

// "32768K", "1M", "512" as bytes; 0 when unreadable.
size_t ReadCacheSize(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string s;
  if (!(in >> s) || s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return 0;
  size_t v = std::strtoull(s.c_str(), nullptr, 10);
  if (s.back() == 'K') v <<= 10;
  if (s.back() == 'M') v <<= 20;
  return v;
}

// The last level cpu 0 sees (what one core's working set competes for).
size_t ReadLlcBytes() {
  if (auto llc = LastLevelCache("/sys/devices/system/cpu/cpu0"); !llc.empty())
    if (size_t v = ReadCacheSize(llc / "size"); v > 0) return v;
  long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return v > 0 ? static_cast<size_t>(v) : (32u << 20);
}

// Bumped whenever a probe changes, so cached ceilings are measured again.
constexpr int kProbeVersion = 3;

// Streaming (non-temporal) stores: an ordinary store first reads the line it
// writes, so a plain copy moves 3 bytes for every 2 it is credited with.
__attribute__((target("avx2"))) void StreamCopy(const float* a, float* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) __builtin_ia32_movntps256(b + i, __builtin_ia32_loadups256(a + i));
  for (; i < n; ++i) b[i] = a[i];
}

void PlainCopy(const float* a, float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) b[i] = a[i];
}

// A buffer for the copy probe in huge pages where the kernel gives them:
// faulting 1 GiB in in 4 KiB pages took 2-3 s of system time on a 2-core
// VM, most of a cold start's measurement; in 2 MiB pages it is a fraction.
float* ProbeBuffer(size_t bytes) {
  constexpr size_t kHuge = 2u << 20;
  void* p = std::aligned_alloc(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
  if (p) madvise(p, bytes, MADV_HUGEPAGE);  // advice only: refused, it is 4 KiB pages
  return static_cast<float*>(p);
}

double MeasureCopyBandwidth(size_t buffer_bytes) {
  const size_t n = buffer_bytes / sizeof(float);
  float* a = ProbeBuffer(n * sizeof(float));
  float* b = ProbeBuffer(n * sizeof(float));
  void (*copy)(const float*, float*, size_t) =
      __builtin_cpu_supports("avx2") ? StreamCopy : PlainCopy;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<float>(i), b[i] = 0;
  double best = 1e30;
  for (int rep = 0; rep < 8; ++rep) {
    auto t0 = Clock::now();
#pragma omp parallel
    {
      size_t threads = static_cast<size_t>(omp_get_num_threads());
      size_t t = static_cast<size_t>(omp_get_thread_num());
      size_t chunk = (n / threads + 15) / 16 * 16;
      size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
      copy(a + begin, b + begin, end - begin);
    }
    __builtin_ia32_sfence();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  volatile float sink = b[n / 2];
  (void)sink;
  std::free(a);
  std::free(b);
  return 2.0 * n * sizeof(float) / best / 1e9;
}

// FMA throughput probes: many independent accumulators keep the FMA units
// busy regardless of latency. Returns FLOPs per call.
typedef float Vec4 __attribute__((vector_size(16)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec16 __attribute__((vector_size(64)));

template <typename V, int W>
__attribute__((always_inline)) inline double FmaLoop(long iters, float seed) {
  constexpr int kAcc = 12;
  V acc[kAcc];
  V mul, add;
  for (int i = 0; i < W; ++i) mul[i] = 0.999999f, add[i] = seed * 1e-7f;
  for (auto& a : acc) a = mul * seed;
  for (long it = 0; it < iters; ++it)
    for (int k = 0; k < kAcc; ++k) acc[k] = acc[k] * mul + add;
  float s = 0;
  for (auto& a : acc)
    for (int i = 0; i < W; ++i) s += a[i];
  volatile float sink = s;
  (void)sink;
  return 2.0 * W * kAcc * static_cast<double>(iters);
}

__attribute__((target("avx512f"))) double Fma512(long iters, float seed) {
  return FmaLoop<Vec16, 16>(iters, seed);
}
__attribute__((target("avx2,fma"))) double Fma256(long iters, float seed) {
  return FmaLoop<Vec8, 8>(iters, seed);
}
double Fma128(long iters, float seed) { return FmaLoop<Vec4, 4>(iters, seed); }

double MeasureFlops(std::string* simd) {
  double (*probe)(long, float) = Fma128;
  *simd = "sse";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    probe = Fma512;
    *simd = "avx512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    probe = Fma256;
    *simd = "avx2+fma";
  }
  const long iters = 4'000'000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double flops = 0;
    auto t0 = Clock::now();
#pragma omp parallel reduction(+ : flops)
    flops += probe(iters, 1.0f + static_cast<float>(omp_get_thread_num()));
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, flops / s / 1e9);
  }
  return best;
}

std::string NowIso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

MachineInfo DescribeMachine() {
  MachineInfo m;
  m.cpu_model = ReadCpuModel();
  m.cores = static_cast<int>(std::thread::hardware_concurrency());
  m.llc_bytes = ReadLlcBytes();
  return m;
}

size_t TotalLlcBytes(const std::filesystem::path& cpu_root) {
  std::filesystem::path llc0 = LastLevelCache(cpu_root / "cpu0");
  if (llc0.empty()) return 0;
  const std::filesystem::path index = llc0.filename();
  std::set<std::string> seen;  // one per instance, named by the cores that share it
  size_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cpu_root, ec)) {
    // sysfs names a core "cpuN"; cpufreq, cpuidle and the rest are not cores.
    const std::string name = entry.path().filename().string();
    constexpr std::string_view kCoreFolder = "cpu";  // literal-ok: sysfs's folder, not a backend
    if (name.size() <= kCoreFolder.size() || name.rfind(kCoreFolder, 0) != 0 ||
        !std::all_of(name.begin() + kCoreFolder.size(), name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    std::filesystem::path cache = entry.path() / "cache" / index;
    std::ifstream shared(cache / "shared_cpu_list");
    std::string cores;
    if (!std::getline(shared, cores)) cores = name;  // unlisted: its own
    if (seen.insert(cores).second) total += ReadCacheSize(cache / "size");
  }
  return total;
}

size_t CopyProbeBytes(size_t total_llc_bytes) {
  constexpr size_t kLeast = 64u << 20, kMost = 512u << 20;
  return std::clamp(4 * total_llc_bytes, kLeast, kMost);
}

MachineInfo MeasureMachine() {
  MachineInfo m = DescribeMachine();
  m.copy_bandwidth_gbs =
      MeasureCopyBandwidth(CopyProbeBytes(TotalLlcBytes("/sys/devices/system/cpu")));
  m.fp32_gflops = MeasureFlops(&m.simd);
  m.measured_at = NowIso();
  return m;
}

Result<MachineInfo> LoadOrMeasureMachine(const std::filesystem::path& cache_dir) {
  MachineInfo id = DescribeMachine();
  std::filesystem::path file = cache_dir / "machine-cpu.json";
  if (auto text = ReadFile(file); text.ok()) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_discarded() && j.value("probe_version", 0) == kProbeVersion &&
        j.value("cpu_model", "") == id.cpu_model && j.value("cores", 0) == id.cores &&
        j.value("llc_bytes", size_t{0}) == id.llc_bytes) {
      id.copy_bandwidth_gbs = j.value("copy_bandwidth_gbs", 0.0);
      id.fp32_gflops = j.value("fp32_gflops", 0.0);
      id.simd = j.value("simd", "");
      id.measured_at = j.value("measured_at", "");
      if (id.copy_bandwidth_gbs > 0 && id.fp32_gflops > 0) return id;
    }
  }
  MachineInfo m = MeasureMachine();
  nlohmann::json j = {{"cpu_model", m.cpu_model},     {"cores", m.cores},
                      {"llc_bytes", m.llc_bytes},     {"copy_bandwidth_gbs", m.copy_bandwidth_gbs},
                      {"fp32_gflops", m.fp32_gflops}, {"simd", m.simd},
                      {"measured_at", m.measured_at}, {"probe_version", kProbeVersion}};
  HONE_RETURN_IF_ERROR(WriteFileAtomic(file, JsonText(j, 2)));
  return m;
}

double SpeedOfLightSeconds(double bytes, double flops, const MachineInfo& m) {
  double t = 0;
  if (bytes > 0 && m.copy_bandwidth_gbs > 0) t = std::max(t, bytes / (m.copy_bandwidth_gbs * 1e9));
  if (flops > 0 && m.fp32_gflops > 0) t = std::max(t, flops / (m.fp32_gflops * 1e9));
  return t;
}

}  // namespace hone
