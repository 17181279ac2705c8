#include "sandbox/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>

#include "wire/protocol.h"
#include "wire/violations.h"

// The linker's symbol for the end of the executable's bss.
extern "C" char _end[];

namespace hone::sandbox {
namespace {

int g_report_fd = -1;
bool g_report_text = false;

// Landlock constants newer than some distributions' kernel headers.
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
constexpr uint64_t kNetBindTcp = 1ULL << 0;
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;
constexpr uint64_t kScopeSignal = 1ULL << 1;

// The ruleset attribute as of Landlock ABI 6; older kernels read a prefix.
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

void Missing(PolicyReport& r, const std::string& what, int err) {
  r.missing.push_back(what + " (" + std::strerror(err) + ")");
}

// Appends src to buf (bounded), without allocating: runs in a signal handler.
size_t Append(char* buf, size_t at, size_t cap, const char* src, size_t max_src) {
  for (size_t i = 0; src[i] && i < max_src && at + 1 < cap; ++i) buf[at++] = src[i];
  buf[at] = 0;
  return at;
}

void WriteViolation(int nr, const char* path) {
  wire::Reply reply{};
  reply.magic = wire::kMagic;
  reply.kind = wire::ReplyKind::kViolation;
  reply.detail = nr;
  // Unknown calls leave the message empty; the worker names them, since
  // resolving a name here would allocate inside a signal handler.
  if (const char* rule = wire::RuleForSyscall(nr)) {
    size_t at = Append(reply.message, 0, sizeof reply.message, rule, sizeof reply.message);
    if (path) {
      at = Append(reply.message, at, sizeof reply.message, " (", 2);
      at = Append(reply.message, at, sizeof reply.message, path, 120);
      Append(reply.message, at, sizeof reply.message, ")", 1);
    }
  }
  ssize_t ignored = write(g_report_fd, &reply, sizeof reply);
  (void)ignored;
}

// The same as one line of text; only async-signal-safe calls.
void WriteViolationText(int nr) {
  char line[320];
  size_t at = 0;
  auto add = [&](const char* s, size_t n) { at = Append(line, at, sizeof line - 1, s, n); };
  const char* head = "hone-sandbox: sandbox rule broken: ";
  add(head, std::strlen(head));
  const char* rule = wire::RuleForSyscall(nr);
  if (!rule) rule = "a system call the sandbox denies";
  add(rule, std::strlen(rule));
  char digits[16];
  size_t n = 0;
  for (unsigned v = static_cast<unsigned>(nr); n == 0 || v > 0; v /= 10) digits[n++] = '0' + v % 10;
  add(" (system call ", 14);
  for (; n > 0; --n) add(&digits[n - 1], 1);
  add(")\n", 2);
  ssize_t ignored = write(g_report_fd, line, at);
  (void)ignored;
}

// Libraries probe system information lazily (glibc's CPU count, malloc's
// arena sizing, the C++ runtime): such opens get "no such file" and the
// library falls back, as on any restricted machine. Nothing is opened.
bool IsSystemInfoPath(const char* p) {
  return std::strncmp(p, "/sys/", 5) == 0 || std::strncmp(p, "/proc/", 6) == 0;
}

void OnSigsys(int, siginfo_t* info, void* context) {
  const char* path = nullptr;
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(context);
  int nr = info->si_syscall;
  if (nr == SYS_openat || nr == SYS_openat2)
    path = reinterpret_cast<const char*>(uc->uc_mcontext.gregs[REG_RSI]);
  else if (nr == SYS_open || nr == SYS_creat)
    path = reinterpret_cast<const char*>(uc->uc_mcontext.gregs[REG_RDI]);
  if (path && IsSystemInfoPath(path)) {
    uc->uc_mcontext.gregs[REG_RAX] = -ENOENT;  // the call's result, as if it ran
    return;
  }
#endif
  if (g_report_fd >= 0 && g_report_text)
    WriteViolationText(info->si_syscall);
  else if (g_report_fd >= 0)
    WriteViolation(info->si_syscall, path);
  syscall(SYS_exit_group, wire::kViolationExitCode);
}

// The end of the sandbox executable's own mapping (its bss), rounded up to
// a page: the program break, and every mapping the kernel picks, lie above.
scmp_datum_t SandboxImageEnd() {
  auto end = reinterpret_cast<uintptr_t>(_end);
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t p = page > 0 ? static_cast<uintptr_t>(page) : 4096;
  return static_cast<scmp_datum_t>((end + p - 1) / p * p);
}

// Whether the kernel places new mappings above the executable (the normal
// layout), which the image protection relies on.
bool MappingsLandAboveImage() {
  void* p = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  munmap(p, 4096);
  return reinterpret_cast<uintptr_t>(p) >= static_cast<uintptr_t>(SandboxImageEnd());
}

int AddRule(scmp_filter_ctx ctx, uint32_t action, int nr) {
  return seccomp_rule_add(ctx, action, nr, 0);
}

// A filter that applies to every thread; null (and reported) when
// libseccomp cannot make one.
scmp_filter_ctx NewFilter(uint32_t default_action, PolicyReport& report) {
  scmp_filter_ctx ctx = seccomp_init(default_action);
  if (!ctx) {
    Missing(report, "seccomp", ENOMEM);
    return nullptr;
  }
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  return ctx;
}

// Loads the filter if every rule was added (rc == 0); reports what failed.
bool Finish(scmp_filter_ctx ctx, int rc, const char* what, PolicyReport& report) {
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) {
    Missing(report, std::string("seccomp ") + what + " filter", -rc);
    return false;
  }
  return true;
}

}  // namespace

bool IsolateNetwork(PolicyReport& report) {
  int flags = CLONE_NEWNET;
  if (geteuid() != 0) flags |= CLONE_NEWUSER;
  if (unshare(flags) != 0) {
    Missing(report, "network namespace", errno);
    return false;
  }
  report.features |= wire::kFeatureNetNamespace;
  return true;
}

bool DropPrivileges(PolicyReport& report) {
  if (geteuid() != 0) return true;
  constexpr uid_t kNobody = 65534;
  constexpr gid_t kNogroup = 65534;
  if (setgroups(0, nullptr) != 0 || setresgid(kNogroup, kNogroup, kNogroup) != 0 ||
      setresuid(kNobody, kNobody, kNobody) != 0) {
    Missing(report, "dropping root privileges", errno);
    return false;
  }
  report.features |= wire::kFeatureDroppedPrivileges;
  return true;
}

void FileSystemRules::Open(const std::vector<std::string>& read_dirs, const std::string& write_dir,
                           const std::vector<std::string>& device_files) {
  for (const auto& d : device_files) {
    int fd = open(d.c_str(), O_PATH | O_CLOEXEC);
    if (fd >= 0) device_fds_.push_back(fd);
  }
  // A directory this machine lacks needs no rule: open() fails and is skipped.
  for (const auto& d : read_dirs) {
    int fd = open(d.c_str(), O_PATH | O_CLOEXEC);
    if (fd >= 0) read_fds_.push_back(fd);
  }
  write_fd_ = open(write_dir.c_str(), O_PATH | O_CLOEXEC);
}

bool FileSystemRules::Apply(PolicyReport& report) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) {
    Missing(report, "Landlock file-system restriction", errno);
    return false;
  }
  uint64_t fs =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
      LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
      LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) fs |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  RulesetAttr attr{fs, 0, 0};
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    attr_size = sizeof attr;
  }
  int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) {
    Missing(report, "Landlock ruleset", errno);
    return false;
  }
  auto allow = [&](int fd, uint64_t access) {
    landlock_path_beneath_attr pb{};
    pb.allowed_access = access & fs;
    pb.parent_fd = fd;
    // A regular file (not a directory) cannot take directory rights.
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0) {
      pb.allowed_access &= ~static_cast<uint64_t>(LANDLOCK_ACCESS_FS_READ_DIR);
      syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    }
    close(fd);
  };
  const uint64_t read_exec =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  for (int fd : read_fds_) allow(fd, read_exec);
  for (int fd : device_fds_)
    allow(fd, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_IOCTL_DEV);
  if (write_fd_ >= 0) allow(write_fd_, fs);
  read_fds_.clear();
  device_fds_.clear();
  write_fd_ = -1;
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    Missing(report, "Landlock restrict_self", errno);
    close(ruleset);
    return false;
  }
  close(ruleset);
  report.features |= wire::kFeatureLandlock;
  if (abi >= 4) report.features |= wire::kFeatureLandlockNet;
  return true;
}

void InstallViolationReporter(int report_fd, bool text) {
  g_report_fd = report_fd;
  g_report_text = text;
  struct sigaction sa {};
  sa.sa_sigaction = OnSigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSYS, &sa, nullptr);
}

namespace {

bool InstallCudaBaseFilter(PolicyReport& report) {
  scmp_filter_ctx ctx = NewFilter(SCMP_ACT_ALLOW, report);
  if (!ctx) return false;
  const int denied[] = {
      SYS_fork,
      SYS_vfork,
      SYS_execve,
      SYS_execveat,
      SYS_socket,
      SYS_socketpair,
      SYS_connect,
      SYS_bind,
      SYS_listen,
      SYS_accept,
      SYS_accept4,
      SYS_ptrace,
      SYS_process_vm_readv,
      SYS_process_vm_writev,
      SYS_tkill,
      SYS_mount,
      SYS_umount2,
      SYS_pivot_root,
      SYS_chroot,
      SYS_setuid,
      SYS_setgid,
      SYS_setreuid,
      SYS_setregid,
      SYS_setresuid,
      SYS_setresgid,
      SYS_setgroups,
      SYS_unshare,
      SYS_setns,
      SYS_bpf,
      SYS_perf_event_open,
      SYS_keyctl,
      SYS_add_key,
      SYS_request_key,
      SYS_init_module,
      SYS_finit_module,
      SYS_delete_module,
      SYS_kexec_load,
      SYS_reboot,
      SYS_iopl,
      SYS_ioperm,
      SYS_mknod,
      SYS_mknodat,
      SYS_swapon,
      SYS_swapoff,
      SYS_setrlimit,
      SYS_memfd_create,
      SYS_userfaultfd,
      SYS_pidfd_open,
      SYS_pidfd_send_signal,
      SYS_process_madvise,
  };
  int rc = 0;
  for (int nr : denied) rc |= AddRule(ctx, SCMP_ACT_TRAP, nr);
  rc |= seccomp_rule_add(ctx, SCMP_ACT_TRAP, SYS_clone, 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  rc |= AddRule(ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_clone3);
  rc |= seccomp_rule_add(ctx, SCMP_ACT_TRAP, SYS_tgkill, 1,
                         SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid())));
  rc |= seccomp_rule_add(ctx, SCMP_ACT_TRAP, SYS_kill, 1,
                         SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(getpid())));
  rc |= seccomp_rule_add(ctx, SCMP_ACT_TRAP, SYS_prlimit64, 1, SCMP_A2(SCMP_CMP_NE, 0));
  rc |= seccomp_rule_add(ctx, SCMP_ACT_TRAP, SYS_rt_sigaction, 1, SCMP_A0(SCMP_CMP_EQ, SIGSYS));
  if (!Finish(ctx, rc, "base", report)) return false;
  report.features |= wire::kFeatureSeccomp;
  return true;
}

// The CPU filter's rules for memory mappings (see InstallBaseFilter).
int AddMemoryRules(scmp_filter_ctx ctx, PolicyReport& report) {
  int rc = 0;
  // Memory may be writable or executable, never both: the loader maps code
  // read-execute and needs no more, and without it code cannot be rewritten
  // while the library loads (before the post-load filter forbids PROT_EXEC).
  // Nothing may remap, unmap or reprotect the sandbox's own image (its code,
  // its read-only GOT, its state) or anything below it: the candidate shares
  // the process, and this is where the timer and the reply channel live.
  // Nothing else is mapped below the image, so honest code never asks.
  // With the legacy address layout (an unlimited stack, setarch -L) the
  // kernel places mappings below the image too; then only W^X applies, and
  // the missing protection is reported.
  const bool protect_image = MappingsLandAboveImage();
  const scmp_datum_t image_end = protect_image ? SandboxImageEnd() : 0;
  if (!protect_image)
    report.missing.push_back(
        "protection of the sandbox's own image (the address space uses the legacy layout, "
        "e.g. an unlimited stack: ulimit -s)");
  constexpr scmp_datum_t kWx = PROT_WRITE | PROT_EXEC;
  for (int nr : {SYS_mmap, SYS_mprotect})
    for (scmp_datum_t prot : {scmp_datum_t{0}, scmp_datum_t{PROT_WRITE}, scmp_datum_t{PROT_EXEC}}) {
      // mmap with a null hint lets the kernel choose (far above the image).
      rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2, SCMP_A2(SCMP_CMP_MASKED_EQ, kWx, prot),
                             SCMP_A0(SCMP_CMP_GE, image_end));
      if (nr == SYS_mmap)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2, SCMP_A2(SCMP_CMP_MASKED_EQ, kWx, prot),
                               SCMP_A0(SCMP_CMP_EQ, 0));
    }
  for (int nr : {SYS_munmap, SYS_madvise})
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A0(SCMP_CMP_GE, image_end));
  // mremap may grow or move a mapping (realloc does), never onto a chosen
  // address: MREMAP_FIXED would lay a writable page over the image.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_mremap, 2, SCMP_A0(SCMP_CMP_GE, image_end),
                         SCMP_A3(SCMP_CMP_MASKED_EQ, MREMAP_FIXED, 0));
  return rc;
}

}  // namespace

bool InstallBaseFilter(PolicyReport& report, bool cuda) {
  if (cuda) return InstallCudaBaseFilter(report);
  scmp_filter_ctx ctx = NewFilter(SCMP_ACT_TRAP, report);
  if (!ctx) return false;
  const int allowed[] = {
      SYS_read,
      SYS_write,
      SYS_readv,
      SYS_writev,
      SYS_pread64,
      SYS_pwrite64,
      SYS_close,
      SYS_fstat,
      SYS_newfstatat,
      SYS_statx,
      SYS_lseek,
      SYS_brk,
      SYS_futex,
      SYS_set_robust_list,
      SYS_get_robust_list,
      SYS_rseq,
      SYS_sched_yield,
      SYS_sched_getaffinity,
      SYS_sched_setaffinity,
      SYS_sched_getparam,
      SYS_sched_getscheduler,
      SYS_getcpu,
      SYS_rt_sigprocmask,
      SYS_rt_sigreturn,
      SYS_sigaltstack,
      SYS_getpid,
      SYS_gettid,
      SYS_getuid,
      SYS_geteuid,
      SYS_getgid,
      SYS_getegid,
      SYS_exit,
      SYS_exit_group,
      SYS_clock_gettime,
      SYS_clock_getres,
      SYS_clock_nanosleep,
      SYS_nanosleep,
      SYS_gettimeofday,
      SYS_time,
      SYS_getrandom,
      SYS_uname,
      SYS_sysinfo,
      SYS_membarrier,
      SYS_openat,
      SYS_fcntl,
      SYS_access,
      SYS_faccessat,
      SYS_faccessat2,
      SYS_readlink,
      SYS_readlinkat,
      SYS_getrlimit,
      SYS_set_tid_address,
      SYS_arch_prctl,
      SYS_restart_syscall,
  };
  int rc = 0;
  for (int nr : allowed) rc |= AddRule(ctx, SCMP_ACT_ALLOW, nr);
  rc |= AddMemoryRules(ctx, report);
  // Threads (OpenMP) are fine; new processes are not.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_clone, 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  // clone3 passes its flags in memory, where seccomp cannot look: make glibc
  // fall back to clone, which we can inspect.
  rc |= AddRule(ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_clone3);
  // Signals only to itself (abort() raises SIGABRT through tgkill).
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_tgkill, 1,
                         SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid())));
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_kill, 1,
                         SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid())));
  // Reading resource limits is fine, changing them is not.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_prlimit64, 1, SCMP_A2(SCMP_CMP_EQ, 0));
  // stdio asks whether stdout is a terminal.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_ioctl, 1, SCMP_A1(SCMP_CMP_EQ, TCGETS));
  // Loading the post-load filter: both can only tighten the sandbox.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_prctl, 1,
                         SCMP_A0(SCMP_CMP_EQ, PR_SET_NO_NEW_PRIVS));
  rc |= AddRule(ctx, SCMP_ACT_ALLOW, SYS_seccomp);
  // Signal handlers may be installed for anything but SIGSYS, our reporter.
  rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SYS_rt_sigaction, 1, SCMP_A0(SCMP_CMP_NE, SIGSYS));
  if (!Finish(ctx, rc, "base", report)) return false;
  report.features |= wire::kFeatureSeccomp;
  return true;
}

bool InstallPostLoadFilter(PolicyReport& report) {
  scmp_filter_ctx ctx = NewFilter(SCMP_ACT_ALLOW, report);
  if (!ctx) return false;
  int rc = 0;
  for (int nr : {SYS_open, SYS_openat, SYS_openat2, SYS_creat, SYS_memfd_create})
    rc |= AddRule(ctx, SCMP_ACT_TRAP, nr);
  for (int nr : {SYS_mprotect, SYS_pkey_mprotect, SYS_mmap})
    rc |= seccomp_rule_add(ctx, SCMP_ACT_TRAP, nr, 1,
                           SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  return Finish(ctx, rc, "post-load", report);
}

}  // namespace hone::sandbox
