// The CUDA side of hone-sandbox (built only into hone-sandbox-cuda).
//
// Opens the worker's arena through CUDA IPC, owns the stream handed to the
// candidate, times calls with events after an optional L2 flush, watches
// kernel launches through CUPTI (how many, whose, on which stream) and checks
// that nothing is left running on the device once the stream is done. All
// CUDA initialisation happens in Init(), before the sandbox confines itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hone/kernel.h"
#include "sandbox/device_side.h"

namespace hone::sandbox {

class CudaSandbox : public DeviceSide {
 public:
  // pci_bus_id picks the device; arena_hex is the IPC handle; own_kernels the
  // entry functions the candidate's build compiled (mangled names).
  // `compat`: a compat candidate (compat/compat_candidate.h), timed on the
  // legacy default stream with the stream semantics of PyTorch user code.
  bool Init(const std::string& pci_bus_id, const std::string& arena_hex, size_t l2_bytes,
            const std::vector<std::string>& own_kernels, bool compat, std::string* error);
  // After a binding: launches made while hone bound buffers are not the
  // candidate's work between calls.
  void Bound() override;
  char* arena() const override { return arena_; }
  void* stream() const { return stream_; }
  bool launch_tracking() const override { return tracking_; }
  uint64_t event_overhead_nanos() const override { return event_overhead_; }

  void* AllocWorkspace(size_t bytes) override;
  void FreeWorkspace(void* p) override;
  // After a call: "" or what changed around the workspace (sandbox/workspace_guard.h).
  std::string WorkspaceGuardHit(void* workspace, size_t bytes) override;
  // `hold`: queue the whole call behind a held stream (sandbox/cuda/kernels.h)
  // so that launch latency stays out of the measured time. `before_call`
  // (a compat shim's, else null) runs first, before the hold and the flush,
  // and untimed: it reads the call's Python scalars, a sync with the GPU.
  DeviceCallResult Call(int (*forward)(const hone_args*), int (*before_call)(const hone_args*),
                        hone_args* args, bool flush_l2, bool hold) override;
  // Compat only, during a call: the model's forward has returned; what
  // follows (copying its results into hone's outputs) is timed apart.
  void MarkEnd() override;
  static CudaSandbox* active() { return active_; }  // the one in a call, else null

 private:
  static CudaSandbox* active_;
  bool compat_ = false;
  bool in_call_ = false;
  bool marked_ = false;
  void* call_end_ = nullptr;
  char* arena_ = nullptr;
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* end_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  int* flush_sink_ = nullptr;
  // Host memory mapped into the device: the hold's release flag and its
  // timed-out report. Holding stops for good after one timeout.
  volatile int* hold_flags_ = nullptr;
  int* hold_flags_device_ = nullptr;
  bool hold_enabled_ = true;
  bool tracking_ = false;
  uint64_t event_overhead_ = 0;
};

}  // namespace hone::sandbox
