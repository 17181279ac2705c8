// Confinement the sandbox process applies to itself before and after it
// loads candidate code. Runs inside hone-sandbox only.
//
// Order (see sandbox/main.cc and sandbox/confinement.cc): isolate the
// network, drop privileges, restrict the file system (Landlock), install the
// base seccomp allow-list, load the candidate, then forbid opening files and
// making memory executable. A forbidden call stops the process with SIGSYS;
// the handler reports the rule to the worker first. Each step reports
// whether it is in force; what a kernel lacks is reported, never silently
// skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hone::sandbox {

struct PolicyReport {
  uint64_t features = 0;             // wire::Feature bits in force
  std::vector<std::string> missing;  // what could not be applied, and why
};

// Puts the process in a fresh network namespace (no interfaces but loopback,
// which stays down). As root directly; otherwise inside a new user namespace.
bool IsolateNetwork(PolicyReport& report);

// When running as root, switches to the unprivileged user 'nobody'.
bool DropPrivileges(PolicyReport& report);

// Landlock: read and execute beneath read_dirs, full access beneath
// write_dir, nothing else; TCP bind/connect denied where the ABI allows.
// The directories are opened by Open(), before privileges are dropped (the
// candidate's cache may be in a directory only root can enter), and the
// restriction applied by Apply() after.
class FileSystemRules {
 public:
  void Open(const std::vector<std::string>& read_dirs, const std::string& write_dir,
            const std::vector<std::string>& device_files = {});
  bool Apply(PolicyReport& report);

 private:
  std::vector<int> read_fds_;
  std::vector<int> device_fds_;  // read, write and ioctl (GPU device nodes)
  int write_fd_ = -1;
};

// Installs the SIGSYS handler that reports violations on report_fd: as a
// wire::Reply for the worker, or (`text`) as one line "hone-sandbox:
// sandbox rule broken: RULE (system call N)" for a person or a tool's log
// (the standalone call under compute-sanitizer).
void InstallViolationReporter(int report_fd, bool text = false);

// The base seccomp filter, in force while the candidate library loads: an
// allow-list on the CPU; on CUDA, where the driver's needs are large and
// undocumented, a deny-list of what a kernel never needs (processes,
// network, tracing, signals to others, privileges).
bool InstallBaseFilter(PolicyReport& report, bool cuda = false);

// Once the candidate is loaded: no file opens, no executable memory.
bool InstallPostLoadFilter(PolicyReport& report);

}  // namespace hone::sandbox
