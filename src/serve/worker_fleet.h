// The workers of one node from one command (`hone worker --devices all`):
// one child process per device, each a whole `hone worker --device N` of
// its own, started, watched and stopped by the parent.
//
// Processes rather than threads: a worker owns its device and its CUDA
// context, and a crash in one (a driver fault, the test hook that kills a
// worker) must cost that device's worker a restart, not the node's. The
// children share nothing but the queue, the compile cache and the store,
// which are made for several processes already.
//
// What happens to a child:
//   - it exits 0: it is done (--once, --max-jobs, or stopped); not restarted;
//   - it exits 2 (its command line was refused) or 127 (it could not be
//     started): restarting would fail the same way; not restarted;
//   - anything else (another exit code, a signal) before a stop: started
//     again after a back-off that doubles from `backoff_min` to
//     `backoff_max`, and falls back to `backoff_min` once a child has run
//     for `stable_after`.
// On a stop (the `stop` flag: the parent's SIGTERM or SIGINT) every running
// child gets SIGTERM once, which lets it finish and store its job, nobody is
// restarted, and Run returns when all have exited. Children get SIGTERM too
// if the parent dies (PR_SET_PDEATHSIG).
//
// Threads: Run forks and waits on the calling thread; between fork and exec
// the child makes only async-signal-safe calls, so other threads of the
// parent are harmless. It reaps only its own children (waitpid by pid).
// Errors are values; a child that cannot be forked counts as one that
// cannot be started.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace hone {

// One child: its name in messages and its whole command line (argv[0] is
// the program's path).
struct FleetMember {
  std::string name;
  std::vector<std::string> argv;
};

struct FleetOptions {
  std::chrono::milliseconds backoff_min{1000};
  std::chrono::milliseconds backoff_max{60000};
  std::chrono::milliseconds stable_after{60000};
  std::chrono::milliseconds poll{100};  // how often children are checked
};

// How the fleet ended: the exit code for the parent (0, or 2 when a child's
// command line was refused, or 1 when a child could not be started) and
// how many restarts it made.
struct FleetResult {
  int exit_code = 0;
  int restarts = 0;
};

class WorkerFleet {
 public:
  // `say` receives one line per event (a child started, ended, restarting).
  using SayFn = std::function<void(const std::string& line)>;

  WorkerFleet(std::vector<FleetMember> members, FleetOptions options, SayFn say);

  // Starts every child and watches them until each has ended for good:
  // by itself (exit 0, 2, 127) or after a stop.
  FleetResult Run(const std::atomic<bool>& stop);

 private:
  struct Child;
  void Start(Child& c);
  // A child that ended: whether it goes again, and when.
  void Ended(Child& c, int status, bool stopping);
  void StopAll(std::vector<Child>& children);

  std::vector<FleetMember> members_;
  FleetOptions options_;
  SayFn say_;
  FleetResult result_;
};

// `argv` without the options named in `drop`, each given as `--name value`
// or `--name=value`: how a child's command line is made from the parent's
// before its own device is added.
std::vector<std::string> WithoutOptions(const std::vector<std::string>& argv,
                                        const std::vector<std::string>& drop);

}  // namespace hone
