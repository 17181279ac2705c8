#include "measure/device_state.h"

#include <algorithm>
#include <utility>

namespace hone {

bool operator==(const DeviceStateSummary&, const DeviceStateSummary&) = default;

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

namespace {

// The NVML clocks-event reason bits a person is told about (not idle, 0x1).
constexpr std::pair<uint64_t, const char*> kThrottleNames[] = {
    {0x2, "app_clocks"},      {0x4, "sw_power_cap"},     {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},     {0x20, "sw_thermal"},      {0x40, "hw_thermal"},
    {0x80, "hw_power_brake"}, {0x100, "display_clocks"},
};

}  // namespace

std::string ThrottleReasonNames(uint64_t bits) {
  std::string out;
  for (const auto& [bit, name] : kThrottleNames)
    if (bits & bit) out += (out.empty() ? "" : ",") + std::string(name);
  return out.empty() ? "none" : out;
}

uint64_t ThrottleReasonBits(std::string_view names) {
  uint64_t bits = 0;
  while (!names.empty()) {
    const size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    for (const auto& [bit, known] : kThrottleNames)
      if (name == known) bits |= bit;
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
  }
  return bits;
}

}  // namespace hone
