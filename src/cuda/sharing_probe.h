// The worker's probe of a shared GPU (measure/device_sharing.h): a call in
// hone's own CUDA context shaped like a sandbox's held timed call (a hold
// kernel, the cache flush, two events, the release, the wait), and a copy of
// a fixed size timed by events. Made beside the candidate's timed calls, it
// meets whatever the candidate's calls meet from other processes on the GPU
// (time slices, bandwidth), and nothing of the candidate's: it runs while
// the sandbox waits for its next request.
//
// One prober per device, owned by the CUDA backend; its buffers (twice the
// L2 for the flush, two copy buffers) are allocated on the first probe.
// Probe() is thread-safe (one probe at a time) and returns nullopt when the
// device cannot be probed (allocation failed, a CUDA error): the checks then
// judge as on an idle device.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>

#include "measure/device_sharing.h"

namespace hone {

class SharingProber {
 public:
  SharingProber(int device, size_t l2_bytes);
  ~SharingProber();
  SharingProber(const SharingProber&) = delete;
  SharingProber& operator=(const SharingProber&) = delete;

  std::optional<SharingProbe> Probe();

 private:
  struct Buffers;
  bool Ready();

  const int device_;
  const size_t flush_bytes_;
  std::mutex mu_;
  std::unique_ptr<Buffers> b_;
  bool failed_ = false;
};

}  // namespace hone
