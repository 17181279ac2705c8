// What one evaluation saw of a shared device (measure/device_sharing.h): the
// other processes on it, read at each timing's start and end and whenever a
// check is about to fail on time, and the worker's own probe calls, made
// beside the candidate's timed calls while a neighbour is there (none when
// the device is hone's alone: an idle device costs nothing and is judged as
// before). Neighbours seen once count for the rest of the evaluation.
//
// What it asks of the device comes through two functions (a backend's
// Neighbours and ProbeSharing, run/backend.h): either may give nothing, and
// then the watch sees an idle device. One per evaluation; not thread-safe.
#pragma once

#include <functional>
#include <optional>

#include "measure/device_sharing.h"

namespace hone {

class SharingWatch {
 public:
  struct Device {
    std::function<std::optional<DeviceNeighbours>()> neighbours;
    std::function<std::optional<SharingProbe>()> probe;
    double copy_bandwidth_gbs = 0;  // measured alone (measure/machine.h)
  };
  explicit SharingWatch(Device device);

  // Reads the device's other processes now.
  void ReadNeighbours();
  // Beside one of the candidate's timed calls: a probe, if shared.
  void BesideCall();
  // The evidence for a judgement made now: the neighbours read again and,
  // when shared, probes made now until there are at least `min_probes`.
  const DeviceSharing& Evidence(int min_probes = kMinProbes);
  const DeviceSharing& seen() const { return sharing_; }
  bool shared() const { return sharing_.shared(); }

  static constexpr int kMinProbes = 12;

 private:
  void Probe();

  const Device device_;
  DeviceSharing sharing_;
};

}  // namespace hone
