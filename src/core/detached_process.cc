#include "core/detached_process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/subprocess.h"

namespace hone {
namespace {

constexpr int kKeptFd = 3;

// Every descriptor from `from` up closes at exec: the error pipe must stay
// open until then, so they are marked rather than closed.
void CloseAtExecFrom(int from) {
  if (syscall(SYS_close_range, from, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  for (int fd = from; fd < 4096; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// In the grandchild: the standard streams on /dev/null, `keep_fd` as 3,
// every other descriptor closed at exec.
[[noreturn]] void BecomeDetached(char* const* argv, int keep_fd, int err_fd) {
  // The error pipe must not be where the streams or the kept descriptor go.
  if (err_fd <= kKeptFd) err_fd = fcntl(err_fd, F_DUPFD_CLOEXEC, kKeptFd + 1);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
  }
  // dup2 onto another number leaves the copy without FD_CLOEXEC; onto
  // itself it changes nothing, so clear the flag for that case too.
  if (keep_fd >= 0) {
    if (keep_fd != kKeptFd) dup2(keep_fd, kKeptFd);
    fcntl(kKeptFd, F_SETFD, 0);
  }
  CloseAtExecFrom(keep_fd >= 0 ? kKeptFd + 1 : kKeptFd);
  ExecOrReportErrno(argv, err_fd);
}

bool ReadAll(int fd, void* out, size_t n) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

Result<pid_t> SpawnDetached(const std::vector<std::string>& argv, int keep_fd) {
  if (argv.empty()) return Status::Invalid("SpawnDetached: no program");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pid_pipe[2], err_pipe[2];
  if (pipe2(pid_pipe, O_CLOEXEC) != 0)
    return Status::Internal(std::string("pipe: ") + strerror(errno));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(pid_pipe[0]);
    close(pid_pipe[1]);
    return Status::Internal(std::string("pipe: ") + strerror(errno));
  }
  pid_t middle = fork();
  if (middle == 0) {
    setsid();
    pid_t detached = fork();
    if (detached == 0) BecomeDetached(args.data(), keep_fd, err_pipe[1]);
    ssize_t ignored = write(pid_pipe[1], &detached, sizeof detached);
    (void)ignored;
    _exit(detached > 0 ? 0 : 1);
  }
  close(pid_pipe[1]);
  close(err_pipe[1]);
  pid_t detached = -1;
  bool got_pid = middle > 0 && ReadAll(pid_pipe[0], &detached, sizeof detached);
  close(pid_pipe[0]);
  // EOF once the detached process has exec'd (the pipe closes at exec), or
  // its errno when it could not.
  int exec_errno = 0;
  bool failed = got_pid && detached > 0 && ReadAll(err_pipe[0], &exec_errno, sizeof exec_errno);
  close(err_pipe[0]);
  if (middle > 0) waitpid(middle, nullptr, 0);
  if (!got_pid || detached <= 0)
    return Status::Internal(std::string("cannot start a detached process for ") + argv[0]);
  if (failed) return Status::NotFound(argv[0] + ": cannot run: " + strerror(exec_errno));
  return detached;
}

}  // namespace hone
