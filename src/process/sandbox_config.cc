#include "process/sandbox_config.h"

namespace hone {
namespace {

// Directories the dynamic loader and the C++ runtime may read from.
const char* const kSystemReadDirs[] = {
    "/usr/lib", "/lib", "/lib64", "/usr/lib64", "/etc/ld.so.cache", "/sys/devices/system/cpu"};

}  // namespace

std::vector<std::string> ConfinementArgs(const SandboxConfig& c) {
  std::vector<std::string> args;
  for (const char* d : kSystemReadDirs) {
    args.push_back("--read-dir");
    args.push_back(d);
  }
  for (const auto& d : c.extra_read_dirs) {
    args.push_back("--read-dir");
    args.push_back(d);
  }
  if (!c.seccomp) args.push_back("--no-seccomp");
  if (!c.landlock) args.push_back("--no-landlock");
  if (!c.netns) args.push_back("--no-netns");
  if (c.profile) args.push_back("--profile");
  return args;
}

}  // namespace hone
