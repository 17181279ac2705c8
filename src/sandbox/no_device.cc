// hone-sandbox's device side (sandbox/device_side.h): none. Its candidates
// run on the host; a worker that asks it for a device is told which
// program has one.
#include "sandbox/control_channel.h"
#include "sandbox/device_side.h"

namespace hone::sandbox {

DeviceSide* OpenDeviceSide(const Options&, std::string*) {
  Die("this hone-sandbox was built without CUDA (use hone-sandbox-cuda)");
}

DeviceSide* DeviceSideInCall() { return nullptr; }

int RunStandaloneCall(const Options&) { Die("--standalone-tensor needs hone-sandbox-cuda"); }

}  // namespace hone::sandbox
