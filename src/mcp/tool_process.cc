#include "mcp/tool_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include "core/process_tree.h"
#include "core/subprocess.h"

namespace hone::mcp {
namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr size_t kMaxStdout = size_t{256} << 20;  // a bench's JSON can be large
constexpr size_t kKeptStderr = size_t{64} << 10;

// hone's --log lines start "YYYY-MM-DD HH:MM:SS "; the client has its own clock.
std::string WithoutTimestamp(const std::string& line) {
  bool stamped = line.size() > 20 && line[4] == '-' && line[7] == '-' && line[10] == ' ' &&
                 line[13] == ':' && line[16] == ':' && line[19] == ' ';
  return stamped ? line.substr(20) : line;
}

// The progress file's complete lines written since the last call.
class ProgressTail {
 public:
  explicit ProgressTail(std::filesystem::path file) : file_(std::move(file)) {}
  std::vector<std::string> NewLines() {
    std::vector<std::string> lines;
    if (file_.empty()) return lines;
    std::ifstream in(file_, std::ios::binary);
    if (!in) return lines;
    in.seekg(offset_);
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    offset_ += static_cast<std::streamoff>(chunk.size());
    partial_ += chunk;
    for (size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
      std::string line = WithoutTimestamp(partial_.substr(0, nl));
      partial_.erase(0, nl + 1);
      if (!line.empty()) lines.push_back(std::move(line));
    }
    return lines;
  }

 private:
  std::filesystem::path file_;
  std::streamoff offset_ = 0;
  std::string partial_;
};

// Says each new progress line, and the last one again at every heartbeat.
class ProgressPacer {
 public:
  ProgressPacer(const ChildRequest& r, const ProgressLine& progress)
      : tail_(r.progress_log), heartbeat_(r.heartbeat), progress_(progress) {}
  void Poll() {
    auto now = SteadyClock::now();
    for (std::string& line : tail_.NewLines()) {
      last_ = std::move(line);
      Say(last_, now);
    }
    if (now - said_at_ < heartbeat_) return;
    double seconds = std::chrono::duration<double>(now - start_).count();
    Say((last_.empty() ? std::string("working") : last_) + " (" +
            std::to_string(static_cast<int>(seconds)) + " s so far)",
        now);
  }

 private:
  void Say(const std::string& line, SteadyClock::time_point now) {
    said_at_ = now;
    if (progress_) progress_(line);
  }
  ProgressTail tail_;
  std::chrono::milliseconds heartbeat_;
  const ProgressLine& progress_;
  SteadyClock::time_point start_ = SteadyClock::now(), said_at_ = start_;
  std::string last_;
};

// Appends what `fd` has now to `into` (the first `cap` bytes, or with
// `keep_tail` the last); false at end of file.
bool ReadSome(int fd, std::string& into, size_t cap, bool keep_tail) {
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  into.append(buf, static_cast<size_t>(n));
  if (into.size() > cap) {
    if (keep_tail)
      into.erase(0, into.size() - cap);
    else
      into.resize(cap);
  }
  return true;
}

// What the child wrote just before it ended, without waiting for a
// grandchild that holds the pipe open.
void DrainWritten(int fd, std::string& into) {
  fcntl(fd, F_SETFL, O_NONBLOCK);
  char buf[65536];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0 && into.size() < kMaxStdout;)
    into.append(buf, static_cast<size_t>(n));
}

void SetOutcomeStatus(int status, ChildOutcome& o) {
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.term_signal = WTERMSIG(status);
}

}  // namespace

int StopProcessTree(pid_t pid, std::chrono::milliseconds grace) {
  std::set<pid_t> seen;
  auto note = [&] {
    for (pid_t p : DescendantsOf(pid)) seen.insert(p);
  };
  note();
  kill(-pid, SIGTERM);
  int status = 0;
  bool reaped = false;
  for (auto deadline = SteadyClock::now() + grace; SteadyClock::now() < deadline;) {
    note();  // while it lives: once it ends, its orphans no longer descend from it
    if (waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!reaped) {
    note();
    kill(-pid, SIGKILL);
  }
  // A pid seen here could in principle have ended and been reused within the
  // grace period; the window is seconds and pids are not reused that fast.
  for (pid_t p : seen) {
    if (getpgid(p) == p) kill(-p, SIGKILL);  // a group of its own: a compiler and its cc1plus
    kill(p, SIGKILL);
  }
  if (!reaped) waitpid(pid, &status, 0);
  return status;
}

Result<ChildOutcome> ProcessRunner::Run(const ChildRequest& request, const CancelFlag& cancel,
                                        const ProgressLine& progress) {
  HONE_CHECK(!request.argv.empty(), "ProcessRunner::Run needs a program");
  int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_err[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {out[0], out[1], err[0], err[1], exec_err[0], exec_err[1]})
      if (fd >= 0) close(fd);
  };
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(exec_err, O_CLOEXEC) != 0) {
    const int e = errno;
    close_all();  // a failed pipe2 leaves its pair -1
    return Status::Io(std::string("pipe: ") + strerror(e));
  }
  std::vector<char*> args;
  for (const auto& a : request.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto start = SteadyClock::now();
  pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close_all();
    return Status::Io(std::string("fork: ") + strerror(e));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // the server gone: its calls go too
    // The server's signal dispositions are its own: hone's interrupt
    // cleanup must see SIGTERM, and a closed pipe end a writer.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    dup2(out[1], 1);
    dup2(err[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    ExecOrReportErrno(args.data(), exec_err[1]);
  }
  setpgid(pid, pid);  // as the child does: the group exists once this returns
  close(out[1]);
  close(err[1]);
  close(exec_err[1]);
  if (int exec_errno = ExecErrnoOf(exec_err[0]); exec_errno != 0) {
    close(out[0]);
    close(err[0]);
    waitpid(pid, nullptr, 0);
    return Status::NotFound(request.argv[0] + ": cannot run: " + strerror(exec_errno));
  }

  ChildOutcome o;
  ProgressPacer pacer(request, progress);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  bool open_out = true, open_err = true, reaped = false;
  int status = 0;
  while ((open_out || open_err) && !reaped) {
    fds[0].fd = open_out ? out[0] : -1;
    fds[1].fd = open_err ? err[0] : -1;
    int ready = poll(fds, 2, 200);
    if (ready > 0) {
      if (open_out && (fds[0].revents & (POLLIN | POLLHUP)))
        open_out = ReadSome(out[0], o.out, kMaxStdout, false);
      if (open_err && (fds[1].revents & (POLLIN | POLLHUP)))
        open_err = ReadSome(err[0], o.err, kKeptStderr, true);
    }
    if (cancel.cancelled()) {
      status = StopProcessTree(pid, grace_);
      o.cancelled = reaped = true;
      break;
    }
    pacer.Poll();
    // A grandchild that kept the pipes open must not hold the call once
    // the child itself has ended.
    if (ready == 0 && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
  }
  if (!reaped) waitpid(pid, &status, 0);
  if (!o.cancelled) DrainWritten(out[0], o.out);
  close(out[0]);
  close(err[0]);
  pacer.Poll();
  SetOutcomeStatus(status, o);
  o.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  return o;
}

}  // namespace hone::mcp
