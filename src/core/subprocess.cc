#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hone {

namespace {
using Clock = std::chrono::steady_clock;
}

Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options) {
  HONE_CHECK(!argv.empty(), "RunCommand needs a program");
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return Status::Io(std::string("pipe: ") + strerror(errno));
  // An exec failure is reported through a second close-on-exec pipe.
  int errpipe[2];
  if (pipe2(errpipe, O_CLOEXEC) != 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return Status::Io(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  auto start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) return Status::Io(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(127);
    ExecOrReportErrno(args.data(), errpipe[1]);
  }
  close(pipefd[1]);
  close(errpipe[1]);
  if (int exec_errno = ExecErrnoOf(errpipe[0]); exec_errno != 0) {
    close(pipefd[0]);
    waitpid(pid, nullptr, 0);
    return Status::NotFound(argv[0] + ": cannot run: " + strerror(exec_errno));
  }

  CommandResult r;
  auto deadline = start + options.timeout;
  char buf[65536];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      kill(-pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t k = read(pipefd[0], buf, sizeof buf);
    if (k <= 0) break;
    size_t room = options.max_output_bytes - std::min(options.max_output_bytes, r.output.size());
    r.output.append(buf, std::min(room, static_cast<size_t>(k)));
    if (static_cast<size_t>(k) > room) r.output_truncated = true;
  }
  close(pipefd[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(wstatus)) r.exit_code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus) && !r.timed_out) r.term_signal = WTERMSIG(wstatus);
  return r;
}

std::string QuoteCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\"'$\\*?;&|<>()") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

void ExecOrReportErrno(char* const* argv, int err_fd) {
  execvp(argv[0], argv);
  int e = errno;
  ssize_t ignored = write(err_fd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

int ExecErrnoOf(int err_fd) {
  int exec_errno = 0;
  ssize_t got = read(err_fd, &exec_errno, sizeof exec_errno);
  close(err_fd);
  return got == sizeof exec_errno ? exec_errno : 0;
}

}  // namespace hone
