#include "sandbox/command_line.h"

#include <cstdlib>
#include <sstream>

namespace hone::sandbox {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

bool ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--ctl-in")
      o.ctl_in = std::atoi(next().c_str());
    else if (a == "--ctl-out")
      o.ctl_out = std::atoi(next().c_str());
    else if (a == "--arena-fd")
      o.arena_fd = std::atoi(next().c_str());
    else if (a == "--arena-bytes")
      o.arena_bytes = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--arena-ipc")
      o.arena_ipc = next();
    else if (a == "--cuda-pci")
      o.cuda_pci = next();
    else if (a == "--cuda-device")
      next();  // the PCI id is what identifies the device
    else if (a == "--kernels")
      o.kernels = Split(next(), ',');
    else if (a == "--library-fd")
      o.library_fd = std::atoi(next().c_str());
    else if (a == "--library-dir")
      o.library_dir = next();
    else if (a == "--scratch")
      o.scratch = next();
    else if (a == "--read-dir")
      o.read_dirs.push_back(next());
    else if (a == "--llc-bytes")
      o.llc_bytes = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--compat")
      o.compat = true;
    else if (a == "--handoff-fd")
      o.handoff_fd = std::atoi(next().c_str());
    else if (a == "--prewarm-python")
      o.prewarm_python = next();
    else if (a == "--prewarm-runner")
      o.prewarm_runner = next();
    else if (a == "--prewarm-idle")
      o.prewarm_idle = true;
    else if (a == "--zygote")
      o.zygote = true;
    else if (a == "--rlimit-as")
      o.rlimit_as = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--rlimit-data")
      o.rlimit_data = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--no-seccomp")
      o.seccomp = false;
    else if (a == "--no-landlock")
      o.landlock = false;
    else if (a == "--no-netns")
      o.netns = false;
    else if (a == "--profile")
      o.seccomp = o.landlock = o.netns = false, o.keep_user = true;
    else if (a == "--standalone-tensor")
      o.standalone.push_back(next());
    else if (a == "--library")
      o.library_path = next();
    else
      return false;
  }
  if (!o.standalone.empty()) return o.cuda() && !o.library_path.empty();
  return o.ctl_in >= 0 && o.ctl_out >= 0 && (o.library_fd >= 0 || o.handoff_fd >= 0);
}

}  // namespace hone::sandbox
