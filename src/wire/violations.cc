#include "wire/violations.h"

#include <seccomp.h>
#include <sys/syscall.h>

#include <cstdlib>

namespace hone::wire {
namespace {

struct RuleName {
  int nr;
  const char* rule;
};

// Rules are named for what the candidate tried, with the system call.
const RuleName kRules[] = {
    {SYS_clone, "process creation (fork/clone) is not allowed: clone"},
    {SYS_fork, "process creation (fork/clone) is not allowed: fork"},
    {SYS_vfork, "process creation (fork/clone) is not allowed: vfork"},
    {SYS_execve, "process creation (exec) is not allowed: execve"},
    {SYS_execveat, "process creation (exec) is not allowed: execveat"},
    {SYS_socket, "network access is not allowed: socket"},
    {SYS_socketpair, "network access is not allowed: socketpair"},
    {SYS_connect, "network access is not allowed: connect"},
    {SYS_bind, "network access is not allowed: bind"},
    {SYS_listen, "network access is not allowed: listen"},
    {SYS_sendto, "network access is not allowed: sendto"},
    {SYS_open, "file access is not allowed: open"},
    {SYS_openat, "file access is not allowed: openat"},
    {SYS_openat2, "file access is not allowed: openat2"},
    {SYS_creat, "file access is not allowed: creat"},
    {SYS_unlink, "file access is not allowed: unlink"},
    {SYS_unlinkat, "file access is not allowed: unlinkat"},
    {SYS_rename, "file access is not allowed: rename"},
    {SYS_mkdir, "file access is not allowed: mkdir"},
    {SYS_getdents64, "file access is not allowed: getdents64"},
    {SYS_ptrace, "process inspection is not allowed: ptrace"},
    {SYS_process_vm_readv, "process inspection is not allowed: process_vm_readv"},
    {SYS_process_vm_writev, "process inspection is not allowed: process_vm_writev"},
    {SYS_kill, "signalling other processes is not allowed: kill"},
    {SYS_tkill, "signalling other processes is not allowed: tkill"},
    {SYS_tgkill, "signalling other processes is not allowed: tgkill"},
    {SYS_mprotect,
     "making memory executable, or changing the sandbox's own image, is not allowed: mprotect"},
    {SYS_pkey_mprotect,
     "making memory executable (or writable code) is not allowed: pkey_mprotect"},
    {SYS_mmap, "making memory executable (or writable code) is not allowed: mmap"},
    {SYS_munmap, "unmapping the sandbox's own image is not allowed: munmap"},
    {SYS_mremap, "moving the sandbox's own image is not allowed: mremap"},
    {SYS_madvise, "changing the sandbox's own image is not allowed: madvise"},
    {SYS_memfd_create, "anonymous files are not allowed: memfd_create"},
    {SYS_ioctl, "device control is not allowed: ioctl"},
    {SYS_prlimit64, "changing resource limits is not allowed: prlimit64"},
    {SYS_setrlimit, "changing resource limits is not allowed: setrlimit"},
    {SYS_rt_sigaction, "replacing the sandbox's SIGSYS handler is not allowed: rt_sigaction"},
    {SYS_perf_event_open, "profiling interfaces are not allowed: perf_event_open"},
};

}  // namespace

const char* RuleForSyscall(int nr) {
  for (const auto& r : kRules)
    if (r.nr == nr) return r.rule;
  return nullptr;
}

std::string DescribeViolation(int nr) {
  if (const char* rule = RuleForSyscall(nr)) return rule;
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  std::string out = std::string("system call not on the sandbox allow-list: ") +
                    (name ? name : ("#" + std::to_string(nr)).c_str());
  free(name);
  return out;
}

}  // namespace hone::wire
