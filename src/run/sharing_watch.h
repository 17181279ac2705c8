// What one evaluation saw of a shared device (measure/device_sharing.h): the
// other processes on it, read at each timing's start and end and whenever a
// check is about to fail on time, and the worker's own probe calls, made
// beside the candidate's timed calls while a neighbour is there (none when
// the device is hone's alone: an idle device costs nothing and is judged as
// before). Neighbours seen once count for the rest of the evaluation.
//
// Borrows the backend; one per evaluation; not thread-safe.
#pragma once

#include "measure/device_sharing.h"
#include "run/backend.h"

namespace hone {

class SharingWatch {
 public:
  explicit SharingWatch(const Backend& backend) : backend_(backend) {}

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

  const Backend& backend_;
  DeviceSharing sharing_;
};

}  // namespace hone
