#include "sandbox/call_server.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hone/kernel.h"
#include "sandbox/cache_flusher.h"
#include "sandbox/control_channel.h"
#include "sandbox/workspace_guard.h"
#include "wire/protocol.h"

namespace hone::sandbox {

bool g_compat = false;

namespace {

// CLOCK_MONOTONIC read by the system call instruction itself. Candidate code
// shares this process and can redirect clock_gettime (its GOT slot, or the
// vDSO while the library loads); it cannot redirect this. The worker's own
// clock bounds what is reported either way.
uint64_t RawMonotonicNanos() {
  timespec ts{};
#if defined(__x86_64__)
  long ret;
  asm volatile("syscall"
               : "=a"(ret)
               : "0"(static_cast<long>(SYS_clock_gettime)), "D"(static_cast<long>(CLOCK_MONOTONIC)),
                 "S"(&ts)
               : "rcx", "r11", "memory");
  (void)ret;
#else
  clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The current call's wire::Request::rng_seed (hone_sandbox_rng_seed).
uint64_t g_rng_seed = 0;

class Server {
 public:
  Server(const Options& o, char* arena, ForwardFn forward, ForwardFn before_call,
         WorkspaceFn workspace, DeviceSide* device)
      : o_(o),
        arena_(arena),
        forward_(forward),
        before_call_(before_call),
        workspace_fn_(workspace),
        flusher_(o.cuda() ? 0 : o.llc_bytes * 2),
        device_(device) {}

  void Run() {
    while (true) {
      wire::Request req{};
      if (!ReadAll(o_.ctl_in, &req, sizeof req)) std::_Exit(0);  // worker went away
      if (req.magic != wire::kMagic) Die("bad request");
      switch (req.op) {
        case wire::Op::kBind:
          Bind(req);
          break;
        case wire::Op::kCall:
          Call(req);
          break;
        case wire::Op::kExit:
          std::_Exit(0);
        default:
          Die("unknown request");
      }
    }
  }

 private:
  // The workspace with canaries around it (sandbox/workspace_guard.h).
  void* AllocWorkspace(size_t bytes) {
    if (device_) return device_->AllocWorkspace(bytes);
    size_t total = sandbox::WorkspaceAllocationBytes(bytes);
    auto* raw = static_cast<unsigned char*>(std::aligned_alloc(256, total));
    if (!raw) return nullptr;
    std::memset(raw, sandbox::kWorkspaceCanary, sandbox::kWorkspaceGuardBytes);
    unsigned char* workspace = raw + sandbox::kWorkspaceGuardBytes;
    std::memset(workspace + bytes, sandbox::kWorkspaceCanary,
                sandbox::WorkspaceTailGuardBytes(bytes));
    return workspace;
  }
  void FreeWorkspace(void* p) {
    if (!p) return;
    if (device_) return device_->FreeWorkspace(p);
    std::free(static_cast<unsigned char*>(p) - sandbox::kWorkspaceGuardBytes);
  }
  // After a call: when the candidate wrote around its workspace, says so
  // (the worker makes it a runtime_error) and ends the sandbox.
  void EndIfWorkspaceGuardHit(const Binding& b) {
    std::string hit = WorkspaceGuardHit(b);
    if (hit.empty()) return;
    SendError(o_.ctl_out, hit);
    std::_Exit(0);
  }
  // After a call: "" or what changed around the workspace.
  std::string WorkspaceGuardHit(const Binding& b) {
    if (!b.workspace) return "";
    if (device_) return device_->WorkspaceGuardHit(b.workspace, b.workspace_bytes);
    auto* w = static_cast<const unsigned char*>(b.workspace);
    return sandbox::DescribeWorkspaceGuardHit(w - sandbox::kWorkspaceGuardBytes,
                                              w + b.workspace_bytes, b.workspace_bytes);
  }

  void Bind(const wire::Request& req) {
    wire::BindPayload p{};
    if (!ReadAll(o_.ctl_in, &p, sizeof p)) std::_Exit(0);
    if (p.num_inputs < 0 || p.num_outputs < 0 || p.num_inputs + p.num_outputs > 4096)
      Die("bad bind");
    Binding b;
    auto read_slots = [&](int n, std::vector<hone_tensor>& out) {
      for (int i = 0; i < n; ++i) {
        wire::TensorSlot s{};
        if (!ReadAll(o_.ctl_in, &s, sizeof s)) std::_Exit(0);
        if (s.offset + s.bytes > o_.arena_bytes || s.ndim < 0 || s.ndim > HONE_MAX_DIMS)
          Die("slot outside the arena");
        hone_tensor t{};
        t.data = arena_ + s.offset;
        t.dtype = static_cast<hone_dtype>(s.dtype);
        t.ndim = s.ndim;
        std::memcpy(t.shape, s.shape, sizeof t.shape);
        std::memcpy(t.stride, s.stride, sizeof t.stride);
        out.push_back(t);
        b.regions.emplace_back(arena_ + s.offset, s.bytes);
      }
    };
    read_slots(p.num_inputs, b.inputs);
    read_slots(p.num_outputs, b.outputs);
    if (workspace_fn_) {
      b.workspace_bytes = workspace_fn_(b.inputs.data(), static_cast<int32_t>(b.inputs.size()));
      if (b.workspace_bytes > (size_t{1} << 48))
        return SendError(
            o_.ctl_out,
            "hone_workspace_bytes asked for " + std::to_string(b.workspace_bytes) + " bytes",
            b.workspace_bytes);
      if (b.workspace_bytes > 0) {
        b.workspace = AllocWorkspace(b.workspace_bytes);
        if (!b.workspace)
          return SendError(
              o_.ctl_out,
              "cannot allocate the workspace of " + std::to_string(b.workspace_bytes) + " bytes",
              b.workspace_bytes);
        if (!device_) b.regions.emplace_back(static_cast<char*>(b.workspace), b.workspace_bytes);
      }
    }
    if (req.binding >= bindings_.size()) bindings_.resize(req.binding + 1);
    FreeWorkspace(bindings_[req.binding].workspace);
    bindings_[req.binding] = std::move(b);
    if (device_) device_->Bound();
    wire::Reply r = MakeReply(wire::ReplyKind::kOk, "");
    r.aux = bindings_[req.binding].workspace_bytes;
    Send(o_.ctl_out, r);
  }

  // Fresh copies of the tensor descriptors on every call: a candidate that
  // rewrites args->outputs[i].data (to alias an input, say) changes only its
  // own call, never what later calls are given.
  hone_args Args(const Binding& b) {
    call_inputs_ = b.inputs;
    call_outputs_ = b.outputs;
    hone_args args{};
    args.inputs = call_inputs_.data();
    args.num_inputs = static_cast<int32_t>(call_inputs_.size());
    args.outputs = call_outputs_.data();
    args.num_outputs = static_cast<int32_t>(call_outputs_.size());
    args.workspace = b.workspace;
    args.workspace_bytes = b.workspace_bytes;
    return args;
  }

  void Call(const wire::Request& req) {
    if (req.binding >= bindings_.size()) Die("call on an unbound binding");
    g_rng_seed = req.rng_seed;
    Binding& b = bindings_[req.binding];
    hone_args args = Args(b);
    if (device_) {
      DeviceCallResult r =
          device_->Call(forward_, before_call_, &args, (req.flags & wire::kFlushLlc) != 0,
                        (req.flags & wire::kTimed) != 0);
      fflush(stdout);
      if (!r.error.empty()) {
        SendError(o_.ctl_out, r.error);
        std::_Exit(0);  // the device's context is unusable after an error
      }
      EndIfWorkspaceGuardHit(b);
      wire::Reply reply = MakeReply(wire::ReplyKind::kOk, r.kernel_names);
      reply.rc = r.rc;
      reply.nanos = r.nanos;
      reply.launches = r.launches;
      reply.own_launches = r.own_launches;
      reply.side_launches = r.side_launches;
      reply.side_copies = r.side_copies;
      std::snprintf(reply.side_copy, sizeof reply.side_copy, "%s", r.first_side_copy.c_str());
      reply.device_sync_nanos = r.device_sync_nanos;
      reply.device_sync_cpu_nanos = r.device_sync_cpu_nanos;
      reply.device_sync_preempted = r.device_sync_preempted ? 1 : 0;
      reply.call_flags = (r.held ? wire::kCallHeld : 0u) | (r.marked ? wire::kCallMarked : 0u) |
                         (r.hold_timed_out ? wire::kCallHoldTimedOut : 0u) |
                         (r.launched_between ? wire::kCallLaunchedBetween : 0u);
      reply.aux = r.unjoined_streams;
      reply.post_mark_nanos = r.post_mark_nanos;
      return Send(o_.ctl_out, reply);
    }
    if (before_call_) before_call_(&args);
    uint64_t flush_start = RawMonotonicNanos();
    if (req.flags & wire::kFlushLlc) flusher_.FlushAll();
    // On the host the buffer may be smaller than the cache (its size is
    // capped: run/sandbox_launcher.cc), so the tensors' lines go too.
    if (req.flags & wire::kFlushLines) {
      CacheFlusher::FlushLines(b, /*workspace=*/true);
    } else if ((req.flags & wire::kFlushLlc) && !o_.cuda() && CacheFlusher::CheapLineFlush()) {
      CacheFlusher::FlushLines(b, /*workspace=*/false);
    }
    uint64_t t0 = RawMonotonicNanos();
    int rc = forward_(&args);
    fflush(stdout);  // what it prints is its own time, not the harness's
    uint64_t t1 = RawMonotonicNanos();
    EndIfWorkspaceGuardHit(b);
    wire::Reply reply = MakeReply(wire::ReplyKind::kOk, "");
    reply.rc = rc;
    reply.nanos = t1 - t0;
    reply.prepare_nanos = t0 - flush_start;
    Send(o_.ctl_out, reply);
  }

  const Options& o_;
  char* arena_;
  ForwardFn forward_;
  ForwardFn before_call_;  // a compat shim's, else null
  WorkspaceFn workspace_fn_;
  CacheFlusher flusher_;
  DeviceSide* device_;  // the program's device (sandbox/device_side.h), else null
  std::vector<Binding> bindings_;
  std::vector<hone_tensor> call_inputs_, call_outputs_;
};

}  // namespace

void ServeCalls(const Options& o, char* arena, ForwardFn forward, ForwardFn before_call,
                WorkspaceFn workspace, DeviceSide* device) {
  Server(o, arena, forward, before_call, workspace, device).Run();
}

}  // namespace hone::sandbox

// Called by a compat shim (python/hone_compat.py) between the model's
// forward and the copy of its results into hone's outputs, so that the
// copy, which KernelBench's timing of model(*inputs) does not have, is
// timed apart on the GPU. Honoured only for compat candidates on CUDA and
// once per call; the worker bounds what follows the mark, so marking early
// hides nothing. On the CPU a call's wall time after the mark is the
// machine's noise as much as the copy's, so CPU calls are timed whole, the
// baselines' too.
extern "C" __attribute__((visibility("default"), used)) void hone_sandbox_mark_end(void) {
  if (!hone::sandbox::g_compat) return;
  if (hone::sandbox::DeviceSide* device = hone::sandbox::DeviceSideInCall()) device->MarkEnd();
}

// The seed a compat shim gives torch before a forward that draws random
// numbers: the one the oracle seeded the forward of this call's expected
// outputs with, so training-mode dropout draws the same mask.
extern "C" __attribute__((visibility("default"), used)) uint64_t hone_sandbox_rng_seed(void) {
  return hone::sandbox::g_rng_seed;
}
