#include "serve/worker_fleet.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace hone {

using Clock = std::chrono::steady_clock;

struct WorkerFleet::Child {
  const FleetMember* member = nullptr;
  pid_t pid = -1;  // running when > 0
  bool done = false;
  Clock::time_point started, next_start;
  std::chrono::milliseconds backoff{0};
};

namespace {

constexpr int kRefused = 2;        // the child's command line was refused
constexpr int kCannotStart = 127;  // exec failed

std::string Describe(int status) {
  if (WIFEXITED(status)) return fmt::format("exited {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
  return "ended";
}

std::string Seconds(std::chrono::milliseconds ms) {
  return fmt::format("{:.1f} s", ms.count() / 1000.0);
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecChild(char* const* argv, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(0);  // the parent died before the line above
  execv(argv[0], argv);
  _exit(kCannotStart);
}

}  // namespace

WorkerFleet::WorkerFleet(std::vector<FleetMember> members, FleetOptions options, SayFn say)
    : members_(std::move(members)), options_(options), say_(std::move(say)) {
  if (!say_) say_ = [](const std::string&) {};
}

void WorkerFleet::Start(Child& c) {
  std::vector<char*> argv;
  for (const std::string& a : c.member->argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) ExecChild(argv.data(), parent);
  if (pid < 0) {
    say_(fmt::format("{}: cannot start: fork: {}", c.member->name, std::strerror(errno)));
    c.done = true;
    result_.exit_code = std::max(result_.exit_code, 1);
    return;
  }
  c.pid = pid;
  c.started = Clock::now();
  say_(fmt::format("{}: started (pid {})", c.member->name, pid));
}

void WorkerFleet::Ended(Child& c, int status, bool stopping) {
  c.pid = -1;
  const std::string& name = c.member->name;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (stopping || code == 0) {
    say_(fmt::format("{}: {}", name, Describe(status)));
    c.done = true;
    return;
  }
  if (code == kRefused || code == kCannotStart) {
    say_(fmt::format("{}: {}: {}; not started again", name, Describe(status),
                     code == kRefused ? "its command line was refused" : "it could not be run"));
    c.done = true;
    result_.exit_code = code == kRefused ? kRefused : std::max(result_.exit_code, 1);
    return;
  }
  auto now = Clock::now();
  if (now - c.started >= options_.stable_after || c.backoff.count() == 0)
    c.backoff = options_.backoff_min;
  c.next_start = now + c.backoff;
  say_(fmt::format("{}: {} unexpectedly; starting it again in {}", name, Describe(status),
                   Seconds(c.backoff)));
  c.backoff = std::min(c.backoff * 2, options_.backoff_max);
  ++result_.restarts;
}

void WorkerFleet::StopAll(std::vector<Child>& children) {
  say_("stopping: each worker finishes the job in hand");
  for (Child& c : children) {
    if (c.pid > 0)
      kill(c.pid, SIGTERM);
    else
      c.done = true;  // waiting for a restart: stays down
  }
}

FleetResult WorkerFleet::Run(const std::atomic<bool>& stop) {
  std::vector<Child> children(members_.size());
  for (size_t i = 0; i < members_.size(); ++i) {
    children[i].member = &members_[i];
    Start(children[i]);
  }
  bool stopping = false;
  while (std::any_of(children.begin(), children.end(), [](const Child& c) { return !c.done; })) {
    if (stop && !stopping) {
      stopping = true;
      StopAll(children);
    }
    for (Child& c : children) {
      int status = 0;
      if (c.pid > 0 && waitpid(c.pid, &status, WNOHANG) == c.pid) Ended(c, status, stopping);
      if (!c.done && c.pid < 0 && !stopping && Clock::now() >= c.next_start) Start(c);
    }
    std::this_thread::sleep_for(options_.poll);
  }
  return result_;
}

std::vector<std::string> WithoutOptions(const std::vector<std::string>& argv,
                                        const std::vector<std::string>& drop) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool spaced = std::find(drop.begin(), drop.end(), a) != drop.end();
    bool joined = std::any_of(drop.begin(), drop.end(),
                              [&](const std::string& d) { return a.rfind(d + "=", 0) == 0; });
    if (spaced)
      ++i;  // and its value
    else if (!joined)
      out.push_back(a);
  }
  return out;
}

}  // namespace hone
