#include "measure/device_state.h"

#include <algorithm>

namespace hone {

DeviceStateSummary Summarize(const std::vector<DeviceSample>& samples) {
  DeviceStateSummary s;
  for (const auto& d : samples) {
    if (!d.valid) continue;
    s.sm_mhz_min = s.samples ? std::min(s.sm_mhz_min, d.sm_mhz) : d.sm_mhz;
    s.sm_mhz_max = std::max(s.sm_mhz_max, d.sm_mhz);
    s.mem_mhz = std::max(s.mem_mhz, d.mem_mhz);
    s.temp_c_max = std::max(s.temp_c_max, d.temp_c);
    s.power_w_max = std::max(s.power_w_max, d.power_w);
    s.throttle_reasons |= d.throttle_reasons;
    ++s.samples;
  }
  return s;
}

std::string ThrottleReasonNames(uint64_t bits) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {0x2, "app_clocks"},      {0x4, "sw_power_cap"},     {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},     {0x20, "sw_thermal"},      {0x40, "hw_thermal"},
      {0x80, "hw_power_brake"}, {0x100, "display_clocks"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames)
    if (bits & bit) out += (out.empty() ? "" : ",") + std::string(name);
  return out.empty() ? "none" : out;
}

}  // namespace hone
