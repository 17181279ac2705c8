// hone-sandbox (CPU) and hone-sandbox-cuda: the only processes that ever run
// candidate code.
//
// Started by the worker (process/sandbox_process.cc) with a scrubbed environment,
// resource limits, a private scratch directory as its working directory and
// these inherited descriptors: requests in, replies out, the candidate
// library and, on the CPU, the shared arena (inputs and outputs only;
// expected outputs never enter this process). On CUDA the arena arrives as an
// IPC handle. It confines itself, loads the library, reports ready, then
// serves bind and call requests until told to exit or killed. A warm
// sandbox starts Python first and gets the rest on a hand-off socket; a
// zygote (sandbox/zygote.h) forks warm sandboxes instead.
//
// This file is the program's order of steps; the steps are in the files it
// includes: the command line (sandbox/command_line.h), the control pipes
// (sandbox/control_channel.h), a warm sandbox's start (sandbox/warm_start.h),
// confinement before the load (sandbox/confinement.h), the device the
// program was linked with (sandbox/device_side.h) and the serving loop
// after it (sandbox/call_server.h).
#include <dlfcn.h>
#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hone/kernel.h"
#include "sandbox/binding.h"
#include "sandbox/call_server.h"
#include "sandbox/command_line.h"
#include "sandbox/confinement.h"
#include "sandbox/control_channel.h"
#include "sandbox/device_side.h"
#include "sandbox/policy.h"
#include "sandbox/warm_start.h"
#include "sandbox/zygote.h"
#include "wire/protocol.h"

namespace {

using namespace hone;
using namespace hone::sandbox;

sandbox::EmbeddedPython g_python;  // Prewarm's, for a zygote's forks

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) Die("usage: started by hone, not by hand");
  if (!o.standalone.empty()) return sandbox::RunStandaloneCall(o);
  if (o.handoff_fd >= 0) {
    if (!o.scratch.empty() && chdir(o.scratch.c_str()) != 0)
      Die("cannot enter the scratch directory");
    if (!o.prewarm_python.empty()) Prewarm(o, g_python);
    Send(o.ctl_out, MakeReply(wire::ReplyKind::kWarm, ""));
    if (o.zygote) {
      // Returns in a forked child only, which then warms as any sandbox.
      o.scratch = sandbox::ServeForks({o.ctl_in, o.ctl_out, o.handoff_fd}, o.scratch, g_python);
      Send(o.ctl_out, MakeReply(wire::ReplyKind::kWarm, ""));
    }
    ReceiveHandoff(o);
    if (o.prewarm_idle) LeaveIdlePriority();
  }
  g_compat = o.compat;
  char* arena = nullptr;
  sandbox::DeviceSide* device = nullptr;
  uint64_t event_overhead = 0;
  bool tracking = false;
  if (o.cuda()) {
    std::string error;
    device = sandbox::OpenDeviceSide(o, &error);
    if (!device) {
      SendError(o.ctl_out, error);
      return wire::kSetupFailedExitCode;
    }
    arena = device->arena();
    event_overhead = device->event_overhead_nanos();
    tracking = device->launch_tracking();
  } else if (o.arena_bytes > 0) {
    void* p = mmap(nullptr, o.arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, o.arena_fd, 0);
    if (p == MAP_FAILED) Die("cannot map the shared arena");
    arena = static_cast<char*>(p);
  }
  if (!o.scratch.empty() && chdir(o.scratch.c_str()) != 0)
    Die("cannot enter the scratch directory");

  // Start the OpenMP runtime now, before confinement: it reads the CPU
  // topology once, and candidates then find it loaded and initialised.
  omp_get_max_threads();

  sandbox::PolicyReport report = ConfineBeforeLoad(o);

  std::string path = "/proc/self/fd/" + std::to_string(o.library_fd);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    SendError(o.ctl_out, std::string("cannot load the candidate: ") + (e ? e : "unknown error"));
    return wire::kSetupFailedExitCode;
  }
  close(o.library_fd);
  auto forward = reinterpret_cast<ForwardFn>(dlsym(lib, "hone_forward"));
  auto workspace = reinterpret_cast<WorkspaceFn>(dlsym(lib, "hone_workspace_bytes"));
  if (!forward) {
    SendError(o.ctl_out,
              "the candidate does not export hone_forward (declare it with HONE_EXPORT)");
    return wire::kSetupFailedExitCode;
  }
  if (o.seccomp && o.compat) {
    // Python and torch open files and map code as they go: the deny-list
    // (no processes, network, tracing, privileges) applies, Landlock keeps
    // files read-only, and the allow-list and post-load rules do not.
    sandbox::InstallBaseFilter(report, /*cuda=*/true);
    report.missing.push_back(
        "compat candidate: the system-call allow-list, the no-open and W^X rules (Python and "
        "torch need them; the deny-list and Landlock apply)");
  } else if (o.seccomp) {
    sandbox::InstallPostLoadFilter(report);
  }
  if (tracking)
    report.features |= wire::kFeatureLaunchTracking;
  else if (o.cuda())
    report.missing.push_back("kernel launch tracking (CUPTI)");

  std::string missing;
  for (const auto& m : report.missing) missing += (missing.empty() ? "" : "; ") + m;
  wire::Reply ready = MakeReply(wire::ReplyKind::kReady, missing);
  ready.aux = report.features;
  ready.nanos = event_overhead;
  Send(o.ctl_out, ready);
  // Only hone's own compat shim gets a step before the clock starts (it
  // reads the call's Python scalars there): a native candidate's export of
  // that name is never called, so its work cannot leave the timed span.
  auto before_call =
      o.compat ? reinterpret_cast<ForwardFn>(dlsym(lib, "hone_compat_before_call")) : nullptr;
  ServeCalls(o, arena, forward, before_call, workspace, device);
  return 0;
}
