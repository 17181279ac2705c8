// The device a sandbox's calls run on beyond the host (a GPU's context and
// arena, its events, the hold and the cache flush), as one interface that
// the sandbox's main and its call server reach it through. Which device a
// sandbox program has is decided when it is linked, never by a macro in
// the code that serves calls: hone-sandbox-cuda links src/sandbox/cuda/
// (CudaSandbox), hone-sandbox src/sandbox/no_device.cc, whose functions say
// that program has none. A device of its own (HIP) is a folder of its own
// and a program linked with it.
//
// One per process, made before confinement and kept until the process
// ends; the serving thread only. A call that leaves the device unusable
// says so in DeviceCallResult::error and the sandbox ends after reporting it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hone/kernel.h"
#include "sandbox/command_line.h"

namespace hone::sandbox {

// One call on the device, as the worker's reply carries it (wire/protocol.h).
struct DeviceCallResult {
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
  std::string error;                   // the device is unusable afterwards
  std::string kernel_names;            // distinct names launched, comma-separated (bounded)
};

class DeviceSide {
 public:
  virtual ~DeviceSide() = default;
  // The arena the worker shares, mapped in this process.
  virtual char* arena() const = 0;
  // Whether each call's launches are seen (the worker's launch checks).
  virtual bool launch_tracking() const = 0;
  // What a pair of the device's events costs, for the worker's verdicts.
  virtual uint64_t event_overhead_nanos() const = 0;
  // A binding's workspace in device memory, with canaries around it
  // (sandbox/workspace_guard.h); "" or what changed around it after a call.
  virtual void* AllocWorkspace(size_t bytes) = 0;
  virtual void FreeWorkspace(void* p) = 0;
  virtual std::string WorkspaceGuardHit(void* workspace, size_t bytes) = 0;
  // After a binding: what hone did to bind buffers is not the candidate's
  // work between calls.
  virtual void Bound() = 0;
  // One call of `forward`: `before_call` (a compat shim's, else null) first
  // and untimed, then the call timed by the device's events, behind a held
  // stream when `hold`, the device's caches flushed first when `flush`.
  virtual DeviceCallResult Call(int (*forward)(const hone_args*),
                                int (*before_call)(const hone_args*), hone_args* args, bool flush,
                                bool hold) = 0;
  // Compat only, during a call: the model's forward has returned.
  virtual void MarkEnd() = 0;
};

// The device `o` names (Options::cuda()), set up before confinement; null
// with *error saying why when it could not be. A program linked without a
// device ends (Die) saying which program has one.
DeviceSide* OpenDeviceSide(const Options& o, std::string* error);
// The device side in a call now, else null (hone_sandbox_mark_end).
DeviceSide* DeviceSideInCall();
// --standalone-tensor: one confined call of the candidate on the device,
// the verdict on stderr and in the exit code (0 clean, 3 non-zero return,
// 4 a device error). A program without a device ends saying so.
int RunStandaloneCall(const Options& o);

}  // namespace hone::sandbox
