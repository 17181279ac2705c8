// A tool call's work as a hone subcommand of its own (`hone eval ... --json`),
// run to its end or stopped. The server never evaluates in its own
// process, as `hone serve` does not: a crash, a hang or a memory blow-up of
// an evaluation ends that call, not the session, and a cancelled call is
// stopped by ending its process tree, which leaves nothing running.
//
// Stopping: SIGTERM to the child (hone removes its temporary files on it,
// core/interrupt_cleanup.h) and its process group, then after a grace
// period SIGKILL to every process that descended from it meanwhile,
// including those that made process groups of their own (compilers) and
// those orphaned when the child ended. Sandboxes also end with their
// parent (PR_SET_PDEATHSIG).
//
// Thread-safe: each Run owns its child, pipes and progress file; many may
// run at once from different threads. The CancelFlag may be set from any
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone::mcp {

class CancelFlag {
 public:
  void Cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  std::atomic<bool> cancelled_{false};
};

struct ChildRequest {
  std::vector<std::string> argv;  // argv[0]: the program
  // A file the child appends its progress lines to (hone's --log), read as
  // it grows; empty: none.
  std::filesystem::path progress_log;
  // How often the last progress line is said again while nothing new comes,
  // so that a client that resets its timeout on progress keeps waiting.
  std::chrono::milliseconds heartbeat{std::chrono::seconds(10)};
};

struct ChildOutcome {
  int exit_code = -1;  // valid when term_signal == 0 and !cancelled
  int term_signal = 0;
  bool cancelled = false;  // stopped because the CancelFlag was set
  std::string out;         // standard output (the command's JSON)
  std::string err;         // standard error, its last 64 KiB
  double seconds = 0;
};

// Called on the Run's own thread with each progress line (and again, with
// the seconds so far, at every heartbeat).
using ProgressLine = std::function<void(const std::string& line)>;

// The seam the tools run their work through: tests give a fake.
class ChildRunner {
 public:
  virtual ~ChildRunner() = default;
  // Fails (Status) only when the program cannot be started.
  virtual Result<ChildOutcome> Run(const ChildRequest& request, const CancelFlag& cancel,
                                   const ProgressLine& progress) = 0;
};

class ProcessRunner : public ChildRunner {
 public:
  // `grace`: how long a stopped child has to end on SIGTERM.
  explicit ProcessRunner(std::chrono::milliseconds grace = std::chrono::seconds(3))
      : grace_(grace) {}
  Result<ChildOutcome> Run(const ChildRequest& request, const CancelFlag& cancel,
                           const ProgressLine& progress) override;

 private:
  std::chrono::milliseconds grace_;
};

// Ends `pid` (a child of this process, leader of its own process group) and
// everything that descends from it, as described above, and reaps it.
// Returns its wait status.
int StopProcessTree(pid_t pid, std::chrono::milliseconds grace);

}  // namespace hone::mcp
