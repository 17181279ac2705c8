#include "cuda/gpu.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/fs.h"
#include "core/json_text.h"
#include "core/process_tree.h"

namespace hone {

std::string GpuInfo::arch() const {
  std::string a = "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
  // Hopper's own instructions (wgmma, setmaxnreg) need the arch-specific target.
  if (cc_major == 9 && cc_minor == 0) a += "a";
  return a;
}

int GpuCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

Result<GpuInfo> QueryGpu(int device) {
  int n = GpuCount();
  if (n == 0) return Status::Unavailable("no CUDA GPU is visible (no driver or no device)");
  if (device < 0 || device >= n)
    return Status::Invalid("--device " + std::to_string(device) + ": this machine has " +
                           std::to_string(n) + " GPU(s)");
  cudaDeviceProp p;
  if (cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess)
    return Status::Unavailable(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(e));
  GpuInfo g;
  g.device = device;
  g.name = p.name;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.sms = p.multiProcessorCount;
  g.l2_bytes = static_cast<size_t>(p.l2CacheSize);
  g.memory_bytes = p.totalGlobalMem;
  char bus[64] = {0};
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  g.pci_bus_id = bus;
  return g;
}

// --- NVML, declared here for the few calls hone makes (the C API is stable).
namespace {

using NvmlDevice = void*;
// nvmlProcessInfo_t as the _v3 process lists fill it.
struct NvmlProcess {
  unsigned pid;
  unsigned long long used_bytes;
  unsigned gpu_instance, compute_instance;
};
struct Nvml {
  int (*init)() = nullptr;
  int (*by_pci)(const char*, NvmlDevice*) = nullptr;
  int (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  int (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  int (*power)(NvmlDevice, unsigned*) = nullptr;
  int (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
  // The process lists (compute and MPS clients), when this NVML has them.
  int (*processes)(NvmlDevice, unsigned*, NvmlProcess*) = nullptr;
  int (*mps_processes)(NvmlDevice, unsigned*, NvmlProcess*) = nullptr;
  bool ok = false;
};

constexpr int kNvmlInsufficientSize = 7;

constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2, kNvmlTemperatureGpu = 0;

const Nvml& LoadNvml() {
  static Nvml nvml = [] {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return n;
    auto sym = [&](const char* name) { return dlsym(lib, name); };
    n.init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
    n.by_pci = reinterpret_cast<int (*)(const char*, NvmlDevice*)>(
        sym("nvmlDeviceGetHandleByPciBusId_v2"));
    n.clock = reinterpret_cast<int (*)(NvmlDevice, int, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
    n.temperature =
        reinterpret_cast<int (*)(NvmlDevice, int, unsigned*)>(sym("nvmlDeviceGetTemperature"));
    n.power = reinterpret_cast<int (*)(NvmlDevice, unsigned*)>(sym("nvmlDeviceGetPowerUsage"));
    void* r = sym("nvmlDeviceGetCurrentClocksEventReasons");
    if (!r) r = sym("nvmlDeviceGetCurrentClocksThrottleReasons");
    n.reasons = reinterpret_cast<int (*)(NvmlDevice, unsigned long long*)>(r);
    using ProcessList = int (*)(NvmlDevice, unsigned*, NvmlProcess*);
    n.processes = reinterpret_cast<ProcessList>(sym("nvmlDeviceGetComputeRunningProcesses_v3"));
    n.mps_processes =
        reinterpret_cast<ProcessList>(sym("nvmlDeviceGetMPSComputeRunningProcesses_v3"));
    n.ok = n.init && n.by_pci && n.clock && n.temperature && n.power && n.reasons && n.init() == 0;
    return n;
  }();
  return nvml;
}

}  // namespace

DeviceSample ReadGpuState(const GpuInfo& gpu) {
  DeviceSample s;
  const Nvml& n = LoadNvml();
  if (!n.ok) return s;
  NvmlDevice dev = nullptr;
  if (n.by_pci(gpu.pci_bus_id.c_str(), &dev) != 0) return s;
  unsigned mw = 0;
  unsigned long long reasons = 0;
  s.valid = n.clock(dev, kNvmlClockSm, &s.sm_mhz) == 0;
  n.clock(dev, kNvmlClockMem, &s.mem_mhz);
  n.temperature(dev, kNvmlTemperatureGpu, &s.temp_c);
  if (n.power(dev, &mw) == 0) s.power_w = mw / 1000.0;
  if (n.reasons(dev, &reasons) == 0) s.throttle_reasons = reasons;
  return s;
}

namespace {

// One of NVML's process lists; false when it could not be read.
bool ListProcesses(int (*list)(NvmlDevice, unsigned*, NvmlProcess*), NvmlDevice dev,
                   std::vector<NvmlProcess>* out) {
  if (!list) return false;
  for (unsigned room = 16; room <= 4096; room *= 4) {
    std::vector<NvmlProcess> procs(room);
    unsigned count = room;
    int rc = list(dev, &count, procs.data());
    if (rc == kNvmlInsufficientSize) continue;
    if (rc != 0) return false;
    out->insert(out->end(), procs.begin(), procs.begin() + std::min(count, room));
    return true;
  }
  return false;
}

}  // namespace

DeviceNeighbours ReadGpuNeighbours(const GpuInfo& gpu) {
  DeviceNeighbours n;
  const Nvml& nvml = LoadNvml();
  NvmlDevice dev = nullptr;
  if (!nvml.ok || nvml.by_pci(gpu.pci_bus_id.c_str(), &dev) != 0) return n;
  std::vector<NvmlProcess> procs;
  n.known = ListProcesses(nvml.processes, dev, &procs);
  ListProcesses(nvml.mps_processes, dev, &procs);
  const pid_t self = getpid();
  std::set<unsigned> seen;
  for (const NvmlProcess& p : procs) {
    if (!seen.insert(p.pid).second || DescendsFrom(static_cast<pid_t>(p.pid), self)) continue;
    // Under CUDA MPS the driver lists the server, whose contexts run hone's
    // own work (and any client's): a neighbour is a client, listed itself.
    if (ProgramOf(static_cast<pid_t>(p.pid)) == "nvidia-cuda-mps-server") continue;
    ++n.others;
    // NVML_VALUE_NOT_AVAILABLE (all ones) where memory is not reported.
    if (p.used_bytes != ~0ull) n.others_bytes += static_cast<int64_t>(p.used_bytes);
  }
  return n;
}

// Bumped whenever a probe changes, so cached ceilings are measured again.
constexpr int kGpuProbeVersion = 4;

Result<MachineInfo> LoadOrMeasureGpu(const GpuInfo& gpu, const std::filesystem::path& cache_dir) {
  std::string id = gpu.name + "@" + gpu.pci_bus_id;
  std::filesystem::path file = cache_dir / ("machine-gpu-" + std::to_string(gpu.device) + ".json");
  MachineInfo m;
  m.kind = "gpu";
  m.cpu_model = gpu.name;
  m.cores = gpu.sms;
  m.llc_bytes = gpu.l2_bytes;
  m.simd = gpu.arch();
  m.device = "cuda:" + std::to_string(gpu.device);
  m.bus_id = gpu.pci_bus_id;
  if (auto text = ReadFile(file); text.ok()) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_discarded() && j.value("id", "") == id &&
        j.value("probe_version", 0) == kGpuProbeVersion && j.value("copy_bandwidth_gbs", 0.0) > 0) {
      m.copy_bandwidth_gbs = j.value("copy_bandwidth_gbs", 0.0);
      m.fp32_gflops = j.value("fp32_gflops", 0.0);
      m.measured_at = j.value("measured_at", "");
      return m;
    }
  }
  // A neighbour's work would lower the ceilings for every later evaluation:
  // measured beside one, they serve this process only, and the next one
  // measures again.
  const bool shared = ReadGpuNeighbours(gpu).others > 0;
  m.copy_bandwidth_gbs = MeasureGpuCopyBandwidth(gpu.device);
  m.fp32_gflops = MeasureGpuFp32Rate(gpu.device);
  if (m.copy_bandwidth_gbs <= 0 || m.fp32_gflops <= 0)
    return Status::Unavailable("measuring the GPU's ceilings failed");
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  m.measured_at = buf;
  nlohmann::json j = {{"id", id},
                      {"copy_bandwidth_gbs", m.copy_bandwidth_gbs},
                      {"fp32_gflops", m.fp32_gflops},
                      {"measured_at", m.measured_at},
                      {"probe_version", kGpuProbeVersion}};
  if (shared) {
    m.measured_at += " (beside another process: not cached)";
    return m;
  }
  HONE_RETURN_IF_ERROR(WriteFileAtomic(file, JsonText(j, 2)));
  return m;
}

}  // namespace hone
