// hone-sandbox-cuda's device side (sandbox/device_side.h): the CUDA
// sandbox (cuda_sandbox.h) for the worker's calls, and compute-sanitizer's
// standalone call (standalone.h).
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sandbox/binding.h"
#include "sandbox/confinement.h"
#include "sandbox/control_channel.h"
#include "sandbox/cuda/cuda_sandbox.h"
#include "sandbox/cuda/standalone.h"
#include "sandbox/device_side.h"
#include "sandbox/policy.h"

namespace hone::sandbox {

DeviceSide* OpenDeviceSide(const Options& o, std::string* error) {
  static CudaSandbox cs;
  std::string why;
  if (!cs.Init(o.cuda_pci, o.arena_ipc, o.llc_bytes, o.kernels, o.compat, &why)) {
    *error = "CUDA set-up failed: " + why;
    return nullptr;
  }
  return &cs;
}

DeviceSide* DeviceSideInCall() { return CudaSandbox::active(); }

int RunStandaloneCall(const Options& o) {
  std::vector<StandaloneTensor> tensors;
  for (const std::string& spec : o.standalone) {
    StandaloneTensor t;
    if (!ParseStandaloneTensor(spec, &t)) Die(("bad --standalone-tensor " + spec).c_str());
    tensors.push_back(std::move(t));
  }
  if (!o.scratch.empty() && chdir(o.scratch.c_str()) != 0)
    Die("cannot enter the scratch directory");
  StandaloneCall call;
  std::string error;
  if (!call.Prepare(o.cuda_pci, tensors, &error)) Die(("set-up failed: " + error).c_str());
  // Opened before privileges are dropped: the build cache may be root's.
  int library = open(o.library_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (library < 0) Die("cannot open the candidate");
  ConfineBeforeLoad(o);
  std::string path = "/proc/self/fd/" + std::to_string(library);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    Die(("cannot load the candidate: " + std::string(e ? e : "unknown error")).c_str());
  }
  auto forward = reinterpret_cast<ForwardFn>(dlsym(lib, "hone_forward"));
  auto workspace = reinterpret_cast<WorkspaceFn>(dlsym(lib, "hone_workspace_bytes"));
  if (!forward) Die("the candidate does not export hone_forward");
  if (o.seccomp && o.compat) {
    // A compat shim has loaded (Python, its first call): from here on the
    // deny-list a worker's compat sandbox gets after its load.
    PolicyReport after_load;
    InstallBaseFilter(after_load, /*cuda=*/true);
  }
  int rc = call.Run(forward, workspace, &error);
  std::fprintf(stderr, "hone-sandbox: standalone call: %s\n", rc == 0 ? "ok" : error.c_str());
  return rc;
}

}  // namespace hone::sandbox
