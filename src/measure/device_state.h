// A GPU's state while it is measured (clocks, temperature, power, throttle
// reasons) and its summary over a timing run. Plain values: the CUDA backend
// fills samples from NVML; everything else only reads them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

struct DeviceSample {
  bool valid = false;
  unsigned sm_mhz = 0, mem_mhz = 0, temp_c = 0;
  double power_w = 0;
  uint64_t throttle_reasons = 0;  // NVML clocks-event reason bits
};

struct DeviceStateSummary {
  int samples = 0;
  unsigned sm_mhz_min = 0, sm_mhz_max = 0, mem_mhz = 0, temp_c_max = 0;
  double power_w_max = 0;
  uint64_t throttle_reasons = 0;  // OR over the samples
  // Defaulted in the .cc: gpu_probe.cu includes this header as C++17.
  friend bool operator==(const DeviceStateSummary&, const DeviceStateSummary&);
};

DeviceStateSummary Summarize(const std::vector<DeviceSample>& samples);
// "none", or names such as "sw_power_cap,hw_slowdown" (the idle bit is ignored).
std::string ThrottleReasonNames(uint64_t bits);
// The inverse: the bits of the names it knows ("none" and unknown names: 0).
uint64_t ThrottleReasonBits(std::string_view names);

}  // namespace hone
