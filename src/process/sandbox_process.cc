#include "process/sandbox_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "process/proc_usage.h"
#include "process/sandbox_spawn.h"
#include "wire/handoff.h"
#include "wire/violations.h"

namespace hone {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kLogKeep = 16 << 10;

std::string ViolationText(const wire::Reply& r) {
  std::string msg(r.message, strnlen(r.message, sizeof r.message));
  return msg.empty() ? wire::DescribeViolation(r.detail) : msg;
}

}  // namespace

std::string DescribeSignal(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (segmentation fault: invalid memory access)";
    case SIGBUS:
      return "SIGBUS (bus error: misaligned or unmapped memory)";
    case SIGABRT:
      return "SIGABRT (abort() was called, or an assertion failed)";
    case SIGFPE:
      return "SIGFPE (arithmetic exception, e.g. integer division by zero)";
    case SIGILL:
      return "SIGILL (illegal instruction, e.g. __builtin_trap or an unsupported ISA)";
    case SIGKILL:
      return "SIGKILL (killed: CPU time or memory exhausted)";
    case SIGXCPU:
      return "SIGXCPU (CPU time limit exceeded)";
    case SIGXFSZ:
      return "SIGXFSZ (file size limit exceeded)";
    case SIGSYS:
      return "SIGSYS (forbidden system call)";
    case SIGPIPE:
      return "SIGPIPE (wrote to a closed pipe)";
    default:
      return std::string("signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::Start(const SandboxConfig& c,
                                                              const Arena& arena,
                                                              CallOutcome* startup,
                                                              std::chrono::milliseconds timeout) {
  HONE_ASSIGN_OR_RETURN(auto sp, Spawn(c, arena));
  *startup = sp->AwaitReady(timeout);
  if (!startup->ok()) return std::unique_ptr<SandboxProcess>();
  return sp;
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::Spawn(const SandboxConfig& c,
                                                              const Arena& arena) {
  int library = open(c.library.c_str(), O_RDONLY | O_CLOEXEC);
  if (library < 0)
    return Status::NotFound(c.library.string() + ": cannot open the built candidate");
  auto sp = Launch(c, &arena, library, /*warm_args=*/{}, /*idle_priority=*/false);
  close(library);
  return sp;
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::SpawnWarm(const SandboxConfig& c,
                                                                  bool idle_priority) {
  return StartWarming(c, idle_priority, /*zygote=*/false);
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::SpawnZygote(const SandboxConfig& c,
                                                                    bool idle_priority) {
  return StartWarming(c, idle_priority, /*zygote=*/true);
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::StartWarming(const SandboxConfig& c,
                                                                     bool idle_priority,
                                                                     bool zygote) {
  if (c.python_library.empty() || c.python_runner.empty() || c.profile)
    return Status::Invalid("a warm sandbox needs a compat runtime and no profiler");
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    return Status::Io(std::string("socketpair: ") + strerror(errno));
  std::vector<std::string> warm_args = {"--handoff-fd",     std::to_string(kLibraryFd),
                                        "--prewarm-python", c.python_library.string(),
                                        "--prewarm-runner", c.python_runner.string()};
  if (idle_priority) warm_args.push_back("--prewarm-idle");
  if (zygote) warm_args.push_back("--zygote");
  auto sp = Launch(c, nullptr, pair[1], warm_args, idle_priority);
  close(pair[1]);
  if (!sp.ok()) {
    close(pair[0]);
    return sp.status();
  }
  (*sp)->handoff_fd_ = pair[0];
  (*sp)->idle_priority_ = idle_priority;
  return sp;
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::Launch(
    const SandboxConfig& c, const Arena* arena, int library,
    const std::vector<std::string>& warm_args, bool idle_priority) {
  const bool warm = !warm_args.empty();
  // A sandbox that dies while we write to it must not take the worker along.
  signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<SandboxProcess> sp(new SandboxProcess());
  sp->memory_limit_ = c.memory_limit_bytes;
  HONE_ASSIGN_OR_RETURN(sp->scratch_, MakeScratch(c));
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  Pipe req, rep, log;
  if (!req.Open() || !rep.Open() || !log.Open()) {
    close(devnull);
    return Status::Io(std::string("pipe: ") + strerror(errno));
  }

  // Everything the child needs is built before fork: the parent may have
  // threads (the build pool), so the child must not allocate.
  std::vector<std::string> args = {
      c.executable.string(),   "--ctl-in",  std::to_string(kCtlIn), "--ctl-out",
      std::to_string(kCtlOut), "--scratch", sp->scratch_.string()};
  if (warm) {
    args.insert(args.end(), warm_args.begin(), warm_args.end());
  } else {
    args.insert(args.end(), {"--library-fd", std::to_string(kLibraryFd)});
    for (auto& a : CandidateArgs(c, *arena)) args.push_back(std::move(a));
  }
  std::vector<std::string> env = SandboxEnvironment(c, sp->scratch_);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  size_t address_limit = AddressLimit(c, arena);

  pid_t pid = fork();
  if (pid < 0) {
    close(devnull);
    return Status::Io(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0)
    ExecSandbox(req.r, rep.w, log.w, arena ? arena->inherit_fd() : -1, library, devnull, c, warm,
                idle_priority, address_limit, argv.data(), envp.data());
  // The child makes its own process group too; whichever runs first, the
  // group exists once this returns (Kill and Pause signal it as a whole).
  setpgid(pid, pid);
  // Here rather than in the child, so that it happens before anything the
  // worker does next (LeaveIdlePriority at a hand-off the moment after).
  if (warm && idle_priority) {
    sched_param none{};
    sched_setscheduler(pid, SCHED_IDLE, &none);
  }
  close(req.r);
  close(rep.w);
  close(log.w);
  close(devnull);
  sp->Adopt(pid, req.w, rep.r, log.r);
  return sp;
}

void SandboxProcess::Adopt(pid_t pid, int requests, int replies, int log) {
  pid_ = pid;
  req_fd_ = requests;
  rep_fd_ = replies;
  log_fd_ = log;
  fcntl(log_fd_, F_SETFL, O_NONBLOCK);
}

Result<std::unique_ptr<SandboxProcess>> SandboxProcess::ForkWarm(SandboxProcess& zygote,
                                                                 const SandboxConfig& c,
                                                                 std::chrono::milliseconds wait) {
  if (zygote.handoff_fd_ < 0 || !zygote.warm_ || zygote.pid_ <= 0)
    return Status::Internal("ForkWarm needs a warm zygote");
  std::unique_ptr<SandboxProcess> sp(new SandboxProcess());
  sp->memory_limit_ = c.memory_limit_bytes;
  HONE_ASSIGN_OR_RETURN(sp->scratch_, MakeScratch(c));
  Pipe req, rep, log;
  int pair[2] = {-1, -1};
  if (!req.Open() || !rep.Open() || !log.Open() ||
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    req.Close(), rep.Close(), log.Close();
    return Status::Io(std::string("pipe: ") + strerror(errno));
  }
  std::string error;
  bool sent = handoff::Send(zygote.handoff_fd_, {sp->scratch_.string()},
                            {req.r, rep.w, log.w, pair[1]}, &error);
  // The zygote has its own copies now (or never will).
  for (int* fd : {&req.r, &rep.w, &log.w, &pair[1]}) {
    close(*fd);
    *fd = -1;
  }
  auto fail = [&](const std::string& why) {
    req.Close(), rep.Close(), log.Close();
    close(pair[0]);
    return Status::Unavailable("the zygote forked no sandbox: " + why);
  };
  if (!sent) return fail(error);
  pollfd ready{zygote.handoff_fd_, POLLIN, 0};
  if (poll(&ready, 1, static_cast<int>(wait.count())) <= 0) return fail("no reply in time");
  if (!(ready.revents & POLLIN)) return fail("the zygote is gone");
  std::vector<std::string> reply;
  std::vector<int> unexpected;
  if (!handoff::Receive(zygote.handoff_fd_, &reply, &unexpected, &error)) return fail(error);
  for (int fd : unexpected) close(fd);
  if (reply.size() != 2) return fail("a malformed reply");
  if (reply[0] != "pid") return fail(reply[1]);
  const pid_t pid = static_cast<pid_t>(std::atol(reply[1].c_str()));
  if (pid <= 0) return fail("a malformed reply");
  setpgid(pid, pid);  // as Launch: the group exists once this returns
  sp->Adopt(pid, req.w, rep.r, log.r);
  sp->handoff_fd_ = pair[0];
  sp->idle_priority_ = zygote.idle_priority_;
  return sp;
}

bool SandboxProcess::ReplyWaiting() const {
  pollfd p{rep_fd_, POLLIN, 0};
  return rep_fd_ >= 0 && poll(&p, 1, 0) > 0;
}

void SandboxProcess::Hurry() {
  if (!idle_priority_) return;
  LeaveIdlePriority();
  idle_priority_ = false;
}

CallOutcome SandboxProcess::AwaitWarm(std::chrono::milliseconds timeout) {
  CallOutcome out;
  if (warm_) return out;
  out = AwaitReply(Clock::now() + timeout);
  if (out.ok() && last_reply_ != wire::ReplyKind::kWarm) {
    Kill();
    out.kind = CallOutcome::Kind::kSandboxError;
    out.detail = "the warm sandbox replied out of turn";
  }
  if (!out.ok()) {
    DrainLog();
    if (!log_.empty()) out.detail += "; sandbox log: " + log_.substr(0, 2000);
    return out;
  }
  warm_ = true;
  return out;
}

Status SandboxProcess::Handoff(const SandboxConfig& c, const Arena& arena) {
  if (handoff_fd_ < 0 || !warm_ || pid_ <= 0)
    return Status::Internal("Handoff needs a warm sandbox that has not had its candidate");
  int library = open(c.library.c_str(), O_RDONLY | O_CLOEXEC);
  if (library < 0)
    return Status::NotFound(c.library.string() + ": cannot open the built candidate");
  std::vector<std::string> args = CandidateArgs(c, arena);
  args.push_back(c.limit_address_space ? "--rlimit-as" : "--rlimit-data");
  args.push_back(std::to_string(AddressLimit(c, &arena)));
  std::vector<int> fds = {library};
  if (arena.inherit_fd() >= 0) fds.push_back(arena.inherit_fd());
  std::string error;
  bool sent = handoff::Send(handoff_fd_, args, fds, &error);
  close(library);
  close(handoff_fd_);
  handoff_fd_ = -1;
  memory_limit_ = c.memory_limit_bytes;
  if (!sent) return Status::Io(error);
  return Status::Ok();
}

void SandboxProcess::HandOffWhenWarm(const SandboxConfig& config, const Arena& arena) {
  pending_ = std::make_unique<SandboxConfig>(config);
  pending_arena_ = &arena;
  // Wanted now: a sandbox still warming under SCHED_IDLE would get no CPU
  // at all on a busy machine until it warmed (minutes, seen beside a build),
  // and it returns to normal priority only at the hand-off.
  if (idle_priority_ && warming()) LeaveIdlePriority();
}

void SandboxProcess::LeaveIdlePriority() {
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid_) + "/task", ec)) {
    sched_param none{};
    // Best effort: the sandbox leaves it itself at the hand-off.
    sched_setscheduler(std::atoi(task.path().filename().c_str()), SCHED_OTHER, &none);
  }
}

CallOutcome SandboxProcess::AwaitReady(std::chrono::milliseconds timeout) {
  if (pending_) {
    std::unique_ptr<SandboxConfig> config = std::move(pending_);
    CallOutcome warmed = AwaitWarm(timeout);
    Status st = warmed.ok() ? Handoff(*config, *pending_arena_) : Status::Ok();
    if (!warmed.ok() || !st.ok()) {
      warm_failed_ = true;
      Kill();
      if (warmed.ok()) {
        warmed.kind = CallOutcome::Kind::kSandboxError;
        warmed.detail = st.message();
      }
      return warmed;
    }
  }
  CallOutcome ready = AwaitReply(Clock::now() + timeout);
  if (!ready.ok()) {
    DrainLog();
    if (!log_.empty()) ready.detail += "; sandbox log: " + log_.substr(0, 2000);
    return ready;
  }
  features_ = ready.aux;
  event_overhead_ = ready.reported_seconds;
  missing_ = ready.detail;
  ready.detail.clear();
  return ready;
}

SandboxProcess::~SandboxProcess() {
  if (pid_ > 0) {
    wire::Request r{wire::kMagic, wire::Op::kExit, 0, 0, 0};
    ssize_t ignored = write(req_fd_, &r, sizeof r);
    (void)ignored;
    Kill();
  }
  for (int fd : {req_fd_, rep_fd_, log_fd_, handoff_fd_})
    if (fd >= 0) close(fd);
  std::error_code ec;
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
}

void SandboxProcess::Pause() {
  if (pid_ <= 0 || paused_) return;
  paused_ = kill(-pid_, SIGSTOP) == 0;
}

void SandboxProcess::Resume() {
  if (pid_ <= 0 || !paused_) return;
  kill(-pid_, SIGCONT);
  paused_ = false;
}

void SandboxProcess::Kill() {
  if (pid_ <= 0) return;
  // The whole process group: a compat candidate's module may have started
  // processes while it loaded (before its filter).
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void SandboxProcess::DrainLog() {
  char buf[65536];
  while (true) {
    ssize_t k = read(log_fd_, buf, sizeof buf);
    if (k <= 0) return;
    log_bytes_ += static_cast<uint64_t>(k);
    if (log_.size() < kLogKeep)
      log_.append(buf, std::min(static_cast<size_t>(k), kLogKeep - log_.size()));
  }
}

CallOutcome SandboxProcess::Reap(CallOutcome::Kind kind_if_signalled) {
  CallOutcome out;
  int status = 0;
  rusage usage{};
  while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  DrainLog();
  size_t peak = static_cast<size_t>(usage.ru_maxrss) * 1024;
  std::string memory_note;
  if (memory_limit_ > 0 && peak >= memory_limit_ * 9 / 10)
    memory_note = " after using " + std::to_string(peak >> 20) + " MiB, at the memory limit of " +
                  std::to_string(memory_limit_ >> 20) + " MiB";
  if (has_violation_) {
    out.kind = CallOutcome::Kind::kViolation;
    out.detail = ViolationText(pending_violation_);
    out.syscall = pending_violation_.detail;
    return out;
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    out.kind = sig == SIGSYS ? CallOutcome::Kind::kViolation : kind_if_signalled;
    out.detail =
        sig == SIGSYS ? "forbidden system call (SIGSYS)" : DescribeSignal(sig) + memory_note;
    return out;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.kind = CallOutcome::Kind::kCrashed;
  out.detail = code == wire::kSetupFailedExitCode
                   ? "the sandbox failed to start (see its log)"
                   : "the process exited with status " + std::to_string(code) +
                         " inside the call (exit() or a fatal error)" + memory_note;
  return out;
}

CallOutcome SandboxProcess::AwaitReply(Clock::time_point deadline) {
  wire::Reply reply{};
  size_t got = 0;
  while (got < sizeof reply) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      CallOutcome out;
      out.kind = CallOutcome::Kind::kTimedOut;
      size_t rss = ResidentBytes(pid_);
      if (rss > (64u << 20)) out.detail = "it was using " + std::to_string(rss >> 20) + " MiB";
      Kill();
      DrainLog();
      return out;
    }
    pollfd fds[2] = {{rep_fd_, POLLIN, 0}, {log_fd_, POLLIN, 0}};
    int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)) + 1);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (fds[1].revents & (POLLIN | POLLHUP)) DrainLog();
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      ssize_t k = read(rep_fd_, reinterpret_cast<char*>(&reply) + got, sizeof reply - got);
      if (k <= 0) return Reap(CallOutcome::Kind::kCrashed);
      got += static_cast<size_t>(k);
    }
  }
  if (reply.magic != wire::kMagic) {
    Kill();
    CallOutcome out;
    out.kind = CallOutcome::Kind::kViolation;
    out.detail = "the sandbox's reply channel was tampered with";
    return out;
  }
  CallOutcome out;
  out.rc = reply.rc;
  out.reported_seconds = static_cast<double>(reply.nanos) * 1e-9;
  out.prepare_seconds = static_cast<double>(reply.prepare_nanos) * 1e-9;
  out.aux = reply.aux;
  out.launches = reply.launches;
  out.own_launches = reply.own_launches;
  out.side_launches = reply.side_launches;
  out.side_copies = reply.side_copies;
  out.device_sync_seconds = static_cast<double>(reply.device_sync_nanos) * 1e-9;
  out.device_sync_cpu_seconds = static_cast<double>(reply.device_sync_cpu_nanos) * 1e-9;
  out.device_sync_preempted = reply.device_sync_preempted != 0;
  out.held = (reply.call_flags & wire::kCallHeld) != 0;
  out.marked = (reply.call_flags & wire::kCallMarked) != 0;
  out.hold_timed_out = (reply.call_flags & wire::kCallHoldTimedOut) != 0;
  out.launched_between = (reply.call_flags & wire::kCallLaunchedBetween) != 0;
  out.post_mark_seconds = static_cast<double>(reply.post_mark_nanos) * 1e-9;
  out.detail = std::string(reply.message, strnlen(reply.message, sizeof reply.message));
  out.first_side_copy =
      std::string(reply.side_copy, strnlen(reply.side_copy, sizeof reply.side_copy));
  last_reply_ = reply.kind;
  switch (reply.kind) {
    case wire::ReplyKind::kReady:
    case wire::ReplyKind::kWarm:
    case wire::ReplyKind::kOk:
      out.kind = CallOutcome::Kind::kOk;
      return out;
    case wire::ReplyKind::kError:
      out.kind = CallOutcome::Kind::kSandboxError;
      Kill();
      return out;
    case wire::ReplyKind::kViolation:
      pending_violation_ = reply;
      has_violation_ = true;
      return Reap(CallOutcome::Kind::kViolation);
  }
  Kill();
  out.kind = CallOutcome::Kind::kViolation;
  out.detail = "the sandbox sent an unknown reply";
  return out;
}

CallOutcome SandboxProcess::Send(const void* data, size_t n, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) {
    CallOutcome out;
    out.kind = CallOutcome::Kind::kSandboxError;
    out.detail = "the sandbox is not running";
    return out;
  }
  auto start = Clock::now();
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = write(req_fd_, p, n);
    if (k <= 0) return Reap(CallOutcome::Kind::kCrashed);
    p += k;
    n -= static_cast<size_t>(k);
  }
  CallOutcome out = AwaitReply(start + timeout);
  out.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

uint64_t SandboxProcess::CpuNanos() const { return ThreadsCpuNanos(pid_); }

uint64_t SandboxProcess::SettledCpuNanos() const { return SettledThreadsCpuNanos(pid_); }

int SandboxProcess::RunnableThreads() const { return RunnableThreadsBesidesMain(pid_); }

CallOutcome SandboxProcess::Bind(uint32_t binding, const std::vector<wire::TensorSlot>& inputs,
                                 const std::vector<wire::TensorSlot>& outputs,
                                 std::chrono::milliseconds timeout) {
  std::string msg(sizeof(wire::Request) + sizeof(wire::BindPayload) +
                      (inputs.size() + outputs.size()) * sizeof(wire::TensorSlot),
                  '\0');
  wire::Request r{wire::kMagic, wire::Op::kBind, binding, 0, 0};
  wire::BindPayload p{static_cast<int32_t>(inputs.size()), static_cast<int32_t>(outputs.size())};
  char* at = msg.data();
  std::memcpy(at, &r, sizeof r);
  at += sizeof r;
  std::memcpy(at, &p, sizeof p);
  at += sizeof p;
  for (const auto* list : {&inputs, &outputs})
    for (const auto& s : *list) {
      std::memcpy(at, &s, sizeof s);
      at += sizeof s;
    }
  return Send(msg.data(), msg.size(), timeout);
}

CallOutcome SandboxProcess::Call(uint32_t binding, uint32_t flags,
                                 std::chrono::milliseconds timeout, uint64_t rng_seed) {
  wire::Request r{wire::kMagic, wire::Op::kCall, binding, flags, rng_seed};
  return Send(&r, sizeof r, timeout);
}

}  // namespace hone
