// What the machine can do: its identity and the two ceilings speed of light
// is computed against (memory bandwidth, FP32 FMA rate), measured once and
// cached under $HONE_CACHE so every evaluation reuses them.
//
// Measurement runs in the trusted process with hone's own code and takes
// a fraction of a second to a second (CopyProbeBytes). Thread-compatible: call from one thread.
#pragma once

#include <filesystem>
#include <string>

#include "core/backend_names.h"
#include "core/status.h"

namespace hone {

struct MachineInfo {
  std::string kind = kHostBackend;  // "cpu", or "gpu" (then cpu_model is the GPU's
                                    // name, cores its SMs and llc_bytes its L2)
  std::string cpu_model;
  int cores = 0;
  size_t llc_bytes = 0;
  double copy_bandwidth_gbs = 0;  // bytes read + written per second / 1e9
  double fp32_gflops = 0;         // all cores, FMA counted as 2
  std::string simd;               // widest vector unit the FLOP probe used
  std::string measured_at;        // ISO-8601 UTC
  // Which device of the machine: "cpu", or "cuda:N" with the GPU's PCI bus
  // id (stable where CUDA_VISIBLE_DEVICES renumbers devices). A bench over
  // several GPUs records in each verdict the one that evaluated it.
  std::string device = kHostBackend;
  std::string bus_id;
  // Defaulted in the .cc: gpu_probe.cu includes this header as C++17.
  friend bool operator==(const MachineInfo&, const MachineInfo&);
};

// Identity only (no measurement): model, cores, last-level cache size.
MachineInfo DescribeMachine();

// The cached ceilings, measuring them when absent or when the identity changed.
Result<MachineInfo> LoadOrMeasureMachine(const std::filesystem::path& cache_dir);

MachineInfo MeasureMachine();

// The last-level cache of the whole machine: each distinct instance of cpu
// 0's last level (one per group of cores sharing it, as listed under
// `cpu_root`, normally /sys/devices/system/cpu) counted once. 0 when sysfs
// does not say.
size_t TotalLlcBytes(const std::filesystem::path& cpu_root);

// Bytes of each of the copy probe's two buffers: four times the machine's
// last-level cache, so the copy streams from memory, within 64 MiB and
// 512 MiB. The buffers' first touch (the kernel compacting memory for huge
// pages) was most of a fresh machine's measurement: 1 GiB in all cost 2-5 s
// on a 2-core VM beside torch's import, 128 MiB buffers a fraction, at the
// same bandwidth within noise.
size_t CopyProbeBytes(size_t total_llc_bytes);

// Speed of light in seconds for a task case: max(bytes / bandwidth, flops / rate);
// 0 when neither cost is known.
double SpeedOfLightSeconds(double bytes, double flops, const MachineInfo& m);

}  // namespace hone
