// The wire protocol between the trusted worker and the untrusted sandbox.
//
// Fixed-size little-endian structs over a pair of pipes. The sandbox can
// forge anything it sends (the candidate runs in its process), so the worker
// treats every reply as a claim: it validates sizes and magic numbers,
// cross-checks reported times against its own clock, and never reads
// results from anywhere but the shared output buffers it compares itself.
#pragma once

#include <cstdint>
#include <string>

#include "hone/kernel.h"

namespace hone::wire {

constexpr uint32_t kMagic = 0x454e4f48;  // "HONE"

enum class Op : uint32_t { kBind = 1, kCall = 2, kExit = 3 };

enum CallFlags : uint32_t {
  kFlushLlc = 1u << 0,    // write a buffer twice the last-level cache before the call
                          // (on the host also clflushopt the bound tensors)
  kFlushLines = 1u << 1,  // clflush exactly the bound tensors and workspace
  kTimed = 1u << 2,       // a timing call (warm-up or measured): CUDA holds the stream
};

struct TensorSlot {
  int32_t dtype;
  int32_t ndim;
  int64_t shape[HONE_MAX_DIMS];
  int64_t stride[HONE_MAX_DIMS];
  uint64_t offset;  // into the shared arena
  uint64_t bytes;
};

// Request; a kBind is followed by BindPayload and num_inputs + num_outputs slots.
struct Request {
  uint32_t magic;
  Op op;
  uint32_t binding;
  uint32_t flags;
  // kCall: the seed a compat shim gives torch's generators before a forward
  // that draws random numbers, the one the oracle's expected outputs used.
  uint64_t rng_seed;
};

struct BindPayload {
  int32_t num_inputs;
  int32_t num_outputs;
};

enum class ReplyKind : uint32_t {
  kReady = 1,      // after start-up; aux = active sandbox features
  kOk = 2,         // call or bind done; rc = candidate's return value
  kError = 3,      // the sandbox could not do what was asked; message says why
  kViolation = 4,  // the candidate broke a sandbox rule; message names it
  kWarm = 5,       // a warm sandbox has started Python and awaits its hand-off
};

struct Reply {
  uint32_t magic;
  ReplyKind kind;
  int32_t rc;
  int32_t detail;  // syscall number for a violation
  uint64_t nanos;  // reported duration of hone_forward
  // Feature bits (kReady), workspace bytes (kBind); for a CUDA compat call,
  // side streams whose work was never joined back to the timed stream.
  uint64_t aux;
  // CUDA only, per call: kernel launches seen (all, the candidate's own, on
  // a stream other than args->stream), copies and memsets not on
  // args->stream, and how long a device-wide synchronisation took once the
  // call's stream was done; side_copy names the first such copy's driver
  // function ("cuMemcpyDtoH_v2").
  uint32_t launches;
  uint32_t own_launches;
  uint32_t side_launches;
  uint32_t side_copies;
  uint64_t device_sync_nanos;
  // The sandbox thread's CPU time in that synchronisation, and whether it
  // was preempted meanwhile (its wall time then includes time off the CPU).
  uint64_t device_sync_cpu_nanos;
  uint32_t device_sync_preempted;
  uint32_t call_flags;  // ReplyCallFlags
  // CPU: the cache flush before the call, inside the worker's clock but not
  // part of the call (the worker subtracts it when it checks reported times).
  uint64_t prepare_nanos;
  // Compat candidates on CUDA: the span from the shim's end-of-forward mark
  // to the end of the call (copying the model's results into hone's
  // outputs), left out of `nanos` and bounded by the worker.
  uint64_t post_mark_nanos;
  char side_copy[32];
  char message[200];
};
// One write() of a reply must stay atomic on a pipe.
static_assert(sizeof(Reply) <= 512, "a reply must fit in one atomic pipe write");
// The catalogue's protocol forgers (tests/adversarial/cpu/hijack_protocol.cpp,
// patch_reply*.cpp) mirror this layout: change them with it.
static_assert(sizeof(Reply) == 320, "update the catalogue's mirrors of Reply");

// What a CUDA call reply says about how the call ran.
enum ReplyCallFlags : uint32_t {
  kCallHeld = 1u << 0,    // its work was queued behind the hold kernel
  kCallMarked = 1u << 1,  // the compat shim marked the end of the forward
  // The hold ran out before the call returned: its forward waited on the GPU
  // (a synchronisation, or a launch queue filled up); later calls run unheld.
  kCallHoldTimedOut = 1u << 2,
  // Kernels were launched since the previous call returned (by a thread that
  // outlived it): GPU work outside the calls, which would also slow hone's
  // own probe calls on a shared GPU (measure/device_sharing.h).
  kCallLaunchedBetween = 1u << 3,
};

// Feature bits reported in the ready reply.
enum Feature : uint64_t {
  kFeatureSeccomp = 1u << 0,
  kFeatureLandlock = 1u << 1,
  kFeatureNetNamespace = 1u << 2,
  kFeatureDroppedPrivileges = 1u << 3,
  kFeatureLandlockNet = 1u << 4,
  kFeatureLaunchTracking = 1u << 5,  // CUDA: kernel launches observed through CUPTI
};

// "seccomp,landlock,netns,nobody": the protections among `features` that a
// person reads in a verdict (launch tracking is reported on its own).
std::string FeatureNames(uint64_t features);

// Exit status the sandbox uses after reporting a violation.
constexpr int kViolationExitCode = 97;
// Exit status when its own set-up fails (bad arguments, cannot map memory).
constexpr int kSetupFailedExitCode = 98;

}  // namespace hone::wire
