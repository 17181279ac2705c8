// The GPU hone evaluates on: identity, live state (NVML) and the measured
// ceilings speed of light uses. Worker side only (trusted); needs the CUDA
// driver at run time and reports its absence as a Status.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/status.h"
#include "measure/device_sharing.h"
#include "measure/device_state.h"
#include "measure/machine.h"

namespace hone {

struct GpuInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  size_t l2_bytes = 0;
  size_t memory_bytes = 0;
  std::string pci_bus_id;
  // nvcc target for this GPU's own architecture: "sm_90a" on Hopper.
  std::string arch() const;
};

// Number of usable GPUs; 0 when there is no driver or no device.
int GpuCount();
Result<GpuInfo> QueryGpu(int device);

// Clocks, temperature, power and throttle reasons, read through NVML
// (libnvidia-ml.so.1, loaded on first use); invalid when NVML is missing.
DeviceSample ReadGpuState(const GpuInfo& gpu);

// The other processes on the GPU (NVML's compute and MPS process lists):
// those that are neither this process nor its descendants. Unknown (known
// false) when NVML is missing or cannot list them.
DeviceNeighbours ReadGpuNeighbours(const GpuInfo& gpu);

// Copy bandwidth (device to device, bytes read + written) and FP32 FMA rate
// of the GPU, cached in cache_dir per device (PCI bus id and name).
Result<MachineInfo> LoadOrMeasureGpu(const GpuInfo& gpu, const std::filesystem::path& cache_dir);

// Measured by kernels in gpu_probe.cu.
double MeasureGpuCopyBandwidth(int device);
double MeasureGpuFp32Rate(int device);

}  // namespace hone
