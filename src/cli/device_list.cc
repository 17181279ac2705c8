#include "cli/device_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "session/eval_context.h"

namespace hone::cli {
namespace {

// A device index: digits only.
Result<int> ParseIndex(const std::string& text, const std::string& spec) {
  int v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
    return Status::Invalid(fmt::format(
        "--devices: '{}' in '{}' is not a device index (give all, or indices and ranges such as "
        "0,2 or 0-3)",
        text, spec));
  return v;
}

// One item of the list: "N" or "N-M".
Status AddItem(const std::string& item, const std::string& spec, std::vector<int>& out) {
  size_t dash = item.find('-', 1);
  HONE_ASSIGN_OR_RETURN(int first, ParseIndex(item.substr(0, dash), spec));
  int last = first;
  if (dash != std::string::npos) {
    HONE_ASSIGN_OR_RETURN(last, ParseIndex(item.substr(dash + 1), spec));
    if (last < first)
      return Status::Invalid(fmt::format("--devices: the range {} runs backwards", item));
  }
  for (int d = first; d <= last; ++d) {
    if (std::find(out.begin(), out.end(), d) != out.end())
      return Status::Invalid(fmt::format("--devices: device {} is named twice in '{}'", d, spec));
    out.push_back(d);
  }
  return Status::Ok();
}

std::string Present(int available) {
  if (available == 0) return "no GPU is present";
  if (available == 1) return "this machine has 1 GPU: 0";
  return fmt::format("this machine has {} GPUs: 0-{}", available, available - 1);
}

}  // namespace

bool NumberedDevices(const std::string& backend) {
  const BackendKind* kind = BuiltInBackends().Kind(backend);
  return kind && kind->traits.numbered_devices;
}

int DeviceCount(const std::string& backend) {
  const BackendRegistry backends = BuiltInBackends();
  const BackendKind* kind = backends.Kind(backend);
  return kind ? hone::DeviceCount(*kind) : 0;
}

std::string NumberedBackend() {
  const BackendRegistry backends = BuiltInBackends();
  const BackendKind* kind = NumberedKind(backends);
  return kind ? kind->name : "";
}

Result<std::vector<int>> ParseDeviceList(const std::string& spec, int available) {
  std::vector<int> out;
  if (spec == "all") {
    if (available <= 0)
      return Status::Invalid(
          "--devices all: no GPU is present (for evaluations at once on the CPU: --backend cpu "
          "--lanes N)");
    for (int d = 0; d < available; ++d) out.push_back(d);
    return out;
  }
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string item = spec.substr(start, comma == std::string::npos ? comma : comma - start);
    HONE_RETURN_IF_ERROR(AddItem(item, spec, out));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (int d : out)
    if (d >= available)
      return Status::Invalid(
          fmt::format("--devices: GPU {} is not present ({})", d, Present(available)));
  return out;
}

Result<std::vector<int>> LaneDevices(const std::string& backend, int device,
                                     const std::string& devices, int lanes, int available) {
  if (!devices.empty() && lanes != 0)
    return Status::Invalid("--devices and --lanes: give one, not both");
  if (NumberedDevices(backend)) {
    if (lanes != 0)
      return Status::Invalid(
          "--lanes: parallel lanes are for the cpu backend; GPUs are given with --devices "
          "(one evaluation at a time per GPU)");
    if (devices.empty()) return std::vector<int>{device};
    return ParseDeviceList(devices, available);
  }
  if (!devices.empty())
    return Status::Invalid(fmt::format(
        "--devices: the {} backend has no devices to spread over (--backend cuda for GPUs; "
        "--lanes N for N evaluations at once on the CPU)",
        backend));
  if (lanes < 0) return Status::Invalid("--lanes: must be at least 1");
  return std::vector<int>(std::max(lanes, 1), 0);
}

std::string LaneName(const std::string& backend, int device, size_t lane, size_t lanes) {
  if (NumberedDevices(backend)) return fmt::format("{}:{}", backend, device);
  return lanes > 1 ? fmt::format("{}#{}", backend, lane) : backend;
}

}  // namespace hone::cli
