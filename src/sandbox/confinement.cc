#include "sandbox/confinement.h"

#include <glob.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace hone::sandbox {
namespace {

// The GPU's device nodes, which the CUDA driver opens and controls.
std::vector<std::string> GpuDeviceFiles() {
  std::vector<std::string> out;
  glob_t g;
  if (glob("/dev/nvidia*", 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

}  // namespace

sandbox::PolicyReport ConfineBeforeLoad(const Options& o) {
  sandbox::PolicyReport report;
  sandbox::FileSystemRules rules;
  std::vector<std::string> read_dirs = o.read_dirs;
  read_dirs.push_back(o.library_dir);
  // The harmless character devices programs expect (torch.compile's
  // inductor opens /dev/null while it generates code).
  std::vector<std::string> devices = {"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"};
  if (o.cuda()) {
    for (std::string& d : GpuDeviceFiles()) devices.push_back(std::move(d));
    for (const char* d : {"/proc", "/sys", "/usr/local/cuda", "/usr/local/nvidia"})
      read_dirs.push_back(d);
  }
  if (o.landlock) rules.Open(read_dirs, o.scratch, devices);
  if (o.netns) sandbox::IsolateNetwork(report);
  if (!o.keep_user) sandbox::DropPrivileges(report);
  if (o.landlock) rules.Apply(report);
  // Standalone (under compute-sanitizer) there is no worker to read a
  // wire reply: a violation goes to stderr, into the tool's log.
  if (o.standalone.empty())
    sandbox::InstallViolationReporter(o.ctl_out);
  else
    sandbox::InstallViolationReporter(STDERR_FILENO, /*text=*/true);
  if (o.seccomp && !o.compat) sandbox::InstallBaseFilter(report, o.cuda());
  return report;
}

}  // namespace hone::sandbox
