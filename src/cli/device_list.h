// The flags that spread work over a node: `--devices` (GPUs: `all`, or a
// comma-separated list of indices and ranges, `0,2` or `0-3`) and `--lanes
// N` (that many evaluations at once on the CPU). Shared by `hone bench`
// (one evaluation lane per device) and `hone worker` (one worker process
// per device). Which backends take which flag is their traits' to say
// (BackendTraits::numbered_devices of BuiltInBackends()), never a name's.
// Bad values are Status::Invalid naming the flag (exit 2). Pure functions
// but DeviceCount, which asks the devices; any thread.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace hone::cli {

// Whether the built-in backend `backend` numbers its devices
// (BackendTraits::numbered_devices: the GPUs, which --devices names); false
// for a name it does not know.
bool NumberedDevices(const std::string& backend);
// How many devices of the built-in backend `backend` this machine has
// (run/backend_registry.h's DeviceCount: the GPUs this hone can see for
// cuda, 0 in a build without it); 0 for a name it does not know.
int DeviceCount(const std::string& backend);
// The first built-in backend whose devices are numbered (cuda): what
// --devices means when no --backend is given; "" when there is none.
std::string NumberedBackend();

// The devices `spec` names, in the order given, each once: "all" is
// 0..available-1. Refused: an empty list, a malformed or negative index, a
// backwards range, a device named twice, a device not present (`available`
// GPUs), "all" with no GPU.
Result<std::vector<int>> ParseDeviceList(const std::string& spec, int available);

// What one process evaluates on, from --backend, --device, --devices and
// --lanes: one entry per lane, a device index (all 0 for CPU lanes).
// `backend` is a built-in backend's name; `lanes` is 0 when --lanes was not
// given. A backend with numbered devices (NumberedDevices) takes --devices,
// any other --lanes.
// --devices takes the place of --device. Refused: --devices with the cpu
// backend, --lanes with cuda, --lanes below 1, --devices and --lanes
// together. Neither flag: one lane on `device`.
Result<std::vector<int>> LaneDevices(const std::string& backend, int device,
                                     const std::string& devices, int lanes, int available);

// A lane's name in messages and in a worker's consumer name: "cuda:1" on a
// numbered device, or "cpu" for the only lane and "cpu#2" for the third of
// several.
std::string LaneName(const std::string& backend, int device, size_t lane, size_t lanes);

}  // namespace hone::cli
