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

namespace hone::sandbox {

struct CudaCallResult {
  int rc = 0;
  uint64_t nanos = 0;  // event time of the call
  uint32_t launches = 0, own_launches = 0, side_launches = 0;
  uint32_t side_copies = 0;     // copies and memsets not on args->stream
  std::string first_side_copy;  // the driver function of the first one
  uint64_t device_sync_nanos = 0;
  uint64_t device_sync_cpu_nanos = 0;  // this thread's CPU time in the sync (it spins)
  bool device_sync_preempted = false;  // an involuntary context switch during the sync
  bool held = false;                   // queued behind the hold kernel
  bool hold_timed_out = false;         // ... which ran out before the call returned
  bool marked = false;                 // the compat shim marked the forward's end
  bool launched_between = false;       // kernels launched since the previous call returned
  uint64_t post_mark_nanos = 0;        // event time from that mark to the call's end
  uint32_t unjoined_streams = 0;       // compat: side streams whose work was never joined back
  std::string error;                   // a CUDA error: the context is unusable afterwards
  std::string kernel_names;            // distinct names launched, comma-separated (bounded)
};

class CudaSandbox {
 public:
  // pci_bus_id picks the device; arena_hex is the IPC handle; own_kernels the
  // entry functions the candidate's build compiled (mangled names).
  // `compat`: a compat candidate (compat/compat_candidate.h), timed on the
  // legacy default stream with the stream semantics of PyTorch user code.
  bool Init(const std::string& pci_bus_id, const std::string& arena_hex, size_t l2_bytes,
            const std::vector<std::string>& own_kernels, bool compat, std::string* error);
  // After a binding: launches made while hone bound buffers are not the
  // candidate's work between calls.
  static void Bound();
  char* arena() const { return arena_; }
  void* stream() const { return stream_; }
  bool launch_tracking() const { return tracking_; }
  uint64_t event_overhead_nanos() const { return event_overhead_; }

  void* AllocWorkspace(size_t bytes);
  void FreeWorkspace(void* p);
  // After a call: "" or what changed around the workspace (sandbox/workspace_guard.h).
  std::string WorkspaceGuardHit(void* workspace, size_t bytes);
  // `hold`: queue the whole call behind a held stream (sandbox/cuda/kernels.h)
  // so that launch latency stays out of the measured time. `before_call`
  // (a compat shim's, else null) runs first, before the hold and the flush,
  // and untimed: it reads the call's Python scalars, a sync with the GPU.
  CudaCallResult Call(int (*forward)(const hone_args*), int (*before_call)(const hone_args*),
                      hone_args* args, bool flush_l2, bool hold);
  // Compat only, during a call: the model's forward has returned; what
  // follows (copying its results into hone's outputs) is timed apart.
  void MarkEnd();
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
