// The worker's handle on one hone-sandbox process running one candidate.
//
// Owns the process: the destructor kills and reaps it and removes its
// scratch directory. Every request has a deadline; a candidate that crashes,
// hangs, breaks a sandbox rule or floods its output never takes the worker
// with it. What happened is returned as a CallOutcome value. Status is only
// for the worker's own failures (cannot fork, cannot create pipes).
// Not thread-safe: one thread drives one sandbox. Starting one sets SIGPIPE
// to ignored for the whole process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "process/arena.h"
#include "process/sandbox_config.h"
#include "wire/protocol.h"

namespace hone {

struct CallOutcome {
  enum class Kind {
    kOk,            // the call returned; rc is the candidate's return value
    kCrashed,       // died by a signal or exited
    kTimedOut,      // killed at the deadline
    kViolation,     // broke a sandbox rule
    kSandboxError,  // the sandbox refused (cannot load, bad workspace)
  };
  Kind kind = Kind::kOk;
  int rc = 0;
  double reported_seconds = 0;  // the sandbox's claim (untrusted)
  double wall_seconds = 0;      // the worker's clock around the request
  double prepare_seconds = 0;   // the sandbox's claim: cache flush before the call
  uint64_t aux = 0;
  // CUDA: launches seen during the call, and the device-wide sync after it.
  uint32_t launches = 0, own_launches = 0, side_launches = 0;
  uint32_t side_copies = 0;     // copies and memsets not on args->stream
  std::string first_side_copy;  // the first one's driver function
  double device_sync_seconds = 0;
  double device_sync_cpu_seconds = 0;  // the sandbox thread's CPU time in it
  bool device_sync_preempted = false;  // its thread was taken off the CPU meanwhile
  bool held = false;                   // queued behind the hold kernel (wire::kCallHeld)
  bool hold_timed_out = false;         // wire::kCallHoldTimedOut
  bool marked = false;                 // a compat shim marked the forward's end
  bool launched_between = false;       // wire::kCallLaunchedBetween
  double post_mark_seconds = 0;        // from that mark to the end of the call
  int syscall = -1;                    // kViolation: the system call that broke a rule
  std::string detail;
  bool ok() const { return kind == Kind::kOk; }
};

class SandboxProcess {
 public:
  // Starts the sandbox and waits until it has loaded the candidate. If the
  // candidate fails to load or crashes in its constructors, *startup says so
  // and the result is null.
  static Result<std::unique_ptr<SandboxProcess>> Start(const SandboxConfig& config,
                                                       const Arena& arena, CallOutcome* startup,
                                                       std::chrono::milliseconds timeout);
  // Start in two steps, so one thread can start several sandboxes that load
  // at the same time: Spawn only creates the process, AwaitReady waits for
  // it to load (a failed outcome leaves the process unusable). The thread
  // that spawns must outlive the process: its exit kills the sandbox.
  static Result<std::unique_ptr<SandboxProcess>> Spawn(const SandboxConfig& config,
                                                       const Arena& arena);
  CallOutcome AwaitReady(std::chrono::milliseconds timeout);
  // A warm sandbox (process/warm_pool.h): started before its candidate is known,
  // it starts Python and imports torch (config.python_library and
  // python_runner; config.library and the memory limit are not used yet),
  // then waits. With `idle_priority` it warms under SCHED_IDLE (only on
  // otherwise idle CPUs) and returns to normal priority at its hand-off;
  // that needs root (raising a priority back). AwaitWarm waits until it has
  // warmed. HandOffWhenWarm names its candidate (config.library), arena and
  // limits; AwaitReady then waits for it to warm, hands them over, and waits
  // for it to load as after Spawn. `arena` must outlive that AwaitReady. The
  // same thread rule as Spawn's applies.
  static Result<std::unique_ptr<SandboxProcess>> SpawnWarm(const SandboxConfig& config,
                                                           bool idle_priority);
  CallOutcome AwaitWarm(std::chrono::milliseconds timeout);
  void HandOffWhenWarm(const SandboxConfig& config, const Arena& arena);
  // A zygote (sandbox/zygote.h): warms as SpawnWarm's sandbox does, then
  // forks warm sandboxes (ForkWarm) instead of taking a candidate. Never
  // handed a candidate itself.
  static Result<std::unique_ptr<SandboxProcess>> SpawnZygote(const SandboxConfig& config,
                                                             bool idle_priority);
  // A warm sandbox forked from `zygote` once that has warmed (AwaitWarm):
  // used as SpawnWarm's (HandOffWhenWarm, AwaitReady), with Python and torch
  // imported for about 25 ms of CPU. It is this process's own child, in a
  // scratch folder of its own; the thread that spawned the zygote must
  // outlive it (Spawn's rule). Waits for the zygote's reply up to `wait`;
  // a refusal, or a zygote gone or silent, is a Status (the caller starts
  // sandboxes another way).
  static Result<std::unique_ptr<SandboxProcess>> ForkWarm(SandboxProcess& zygote,
                                                          const SandboxConfig& config,
                                                          std::chrono::milliseconds wait);
  // Whether a reply (the warm one, while warming) is waiting to be read.
  bool ReplyWaiting() const;
  // A sandbox started under SCHED_IDLE back to normal priority for good (a
  // caller waits for it, or a zygote is to fork without being starved).
  void Hurry();
  // AwaitReady failed before the hand-off: the sandbox never warmed, so its
  // candidate never ran (start one cold instead).
  bool warm_failed() const { return warm_failed_; }
  bool warming() const { return handoff_fd_ >= 0 && !warm_; }
  bool idle_priority() const { return idle_priority_; }
  // Stops (SIGSTOP) and continues (SIGCONT) its whole process group: a
  // sandbox warming under SCHED_IDLE still takes a core's sibling thread,
  // memory bandwidth and the turbo headroom from a host-bound measurement,
  // so the warm pool pauses it while something is timed.
  void Pause();
  void Resume();
  bool paused() const { return paused_; }
  ~SandboxProcess();

  CallOutcome Bind(uint32_t binding, const std::vector<wire::TensorSlot>& inputs,
                   const std::vector<wire::TensorSlot>& outputs, std::chrono::milliseconds timeout);
  // `rng_seed`: what a compat shim seeds torch with before the forward
  // (wire::Request::rng_seed); native candidates never see it.
  CallOutcome Call(uint32_t binding, uint32_t flags, std::chrono::milliseconds timeout,
                   uint64_t rng_seed = 0);

  bool alive() const { return pid_ > 0; }
  // For counters the worker opens on the sandbox (tools/cpu_counters.h).
  pid_t pid() const { return pid_; }
  // CPU time all the sandbox's threads have used, read by the worker from
  // /proc (the sandbox cannot forge it); 0 when it cannot be read.
  uint64_t CpuNanos() const;
  // CpuNanos once the main thread has left the CPU (it blocks reading the
  // next request right after replying). /proc's schedstat of a thread still
  // running lags by up to a scheduler tick, which would be charged to the
  // idle time between calls. Waits while the main thread is runnable, until
  // it has run a millisecond more or 20 ms have passed: on a loaded machine a
  // runnable thread may wait far longer for a core than it runs, and a
  // wall-clock millisecond charged that wait to the candidate.
  uint64_t SettledCpuNanos() const;
  // Threads other than the main one that are running or runnable now (state
  // R in /proc): with the sandbox idle, work that outlived a call.
  int RunnableThreads() const;
  uint64_t features() const { return features_; }
  // CUDA: the overhead of a pair of events on the sandbox's stream.
  double event_overhead_seconds() const { return event_overhead_; }
  const std::string& missing_features() const { return missing_; }
  // The first bytes the candidate printed, and how many it printed in all.
  const std::string& log() const { return log_; }
  // Its scratch folder (the only one it may write), deleted when it goes.
  const std::filesystem::path& scratch() const { return scratch_; }
  uint64_t log_bytes() const { return log_bytes_; }

 private:
  SandboxProcess() = default;
  // Every thread of a sandbox warming under SCHED_IDLE back to normal
  // priority (root only): HandOffWhenWarm does it for the sandbox taken.
  void LeaveIdlePriority();
  // SpawnWarm's and SpawnZygote's common part.
  static Result<std::unique_ptr<SandboxProcess>> StartWarming(const SandboxConfig& config,
                                                              bool idle_priority, bool zygote);
  // Spawn's and SpawnWarm's common part: `library` is the candidate, or the
  // hand-off socket when `warm_args` is not empty (arena is then null).
  static Result<std::unique_ptr<SandboxProcess>> Launch(const SandboxConfig& config,
                                                        const Arena* arena, int library,
                                                        const std::vector<std::string>& warm_args,
                                                        bool idle_priority);
  // Takes a started process and the worker's ends of its pipes (Launch's,
  // ForkWarm's); the log is read without blocking.
  void Adopt(pid_t pid, int requests, int replies, int log);
  Status Handoff(const SandboxConfig& config, const Arena& arena);
  CallOutcome Send(const void* data, size_t n, std::chrono::milliseconds timeout);
  CallOutcome AwaitReply(std::chrono::steady_clock::time_point deadline);
  CallOutcome Reap(CallOutcome::Kind kind_if_signalled);
  void DrainLog();
  void Kill();

  pid_t pid_ = -1;
  int req_fd_ = -1, rep_fd_ = -1, log_fd_ = -1;
  int handoff_fd_ = -1;  // a warm sandbox's, until Handoff
  bool warm_ = false;    // AwaitWarm has seen the warm reply
  bool warm_failed_ = false;
  bool idle_priority_ = false;
  bool paused_ = false;
  std::unique_ptr<SandboxConfig> pending_;  // HandOffWhenWarm's, until AwaitReady
  const Arena* pending_arena_ = nullptr;
  wire::ReplyKind last_reply_ = wire::ReplyKind::kOk;
  std::filesystem::path scratch_;
  size_t memory_limit_ = 0;
  uint64_t features_ = 0;
  double event_overhead_ = 0;
  std::string missing_;
  std::string log_;
  uint64_t log_bytes_ = 0;
  wire::Reply pending_violation_{};
  bool has_violation_ = false;
};

// "SIGSEGV (segmentation fault: invalid memory access)".
std::string DescribeSignal(int sig);

}  // namespace hone
