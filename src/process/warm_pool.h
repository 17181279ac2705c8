// Warm sandboxes for compat candidates: sandbox processes that have started
// Python and imported torch before their candidate is known, so that an
// evaluation's start stage only loads the candidate's module. Importing
// torch is most of a cold compat sandbox's start (about 5 s on an H100
// host); hone's oracle load, its extension builds and earlier evaluations
// hide it.
//
// The pool keeps up to `capacity` sandboxes warming or warm (a candidate and
// its eager baseline take two). A sandbox only fits a config with the same
// executable, scratch root, environment, interpreter and limits (WarmKey);
// anything else starts cold, as before. Warming never competes with timing:
// as root the sandboxes warm under SCHED_IDLE (they run only on CPUs nothing
// else wants) and return to normal priority at their hand-off; a host-bound
// measurement (a CPU candidate's, or GPU calls that run unheld) Pause()s
// them until Resume(), since an idle-class process still shares a core's
// hardware threads, memory bandwidth and turbo headroom with the timed
// code. Otherwise Settle() waits for them; the evaluator calls it before
// timing.
//
// A config that allows it (SandboxConfig::zygote) is served by one zygote
// (sandbox/zygote.h): it imports once, and each warm sandbox is forked from
// it (about 25 ms of CPU, against 1.3-5 s for an import). Take waits for
// the zygote to warm when no forked sandbox is there yet. Once warm, the
// zygote runs at normal priority (it only forks). A zygote that fails (it
// cannot warm, it refuses a fork) is let go: the pool starts its sandboxes
// one by one, as for any other config.
//
// Failure to warm (the interpreter cannot start, an import started a
// thread) is never an evaluation's failure: the evaluator starts that
// sandbox cold and Disable()s the pool, which says why (disabled_reason).
// Not thread-safe: one thread uses a pool, and that thread must outlive its
// sandboxes (SandboxProcess's rule).
#pragma once

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "process/sandbox_process.h"

namespace hone {

class WarmPool {
 public:
  // `enabled` false: Prepare does nothing and Take always returns null.
  // `idle_priority`: warm under SCHED_IDLE (needs root, the default as root).
  // `warm_wait`: the longest Take waits for a zygote to warm.
  explicit WarmPool(bool enabled = true, int capacity = 2, bool idle_priority = geteuid() == 0,
                    std::chrono::milliseconds warm_wait = std::chrono::minutes(10));

  // Starts warm sandboxes for configs like `config` until `count` (at most
  // `capacity`; 0: `capacity`) are there (sandboxes warmed for another
  // config are let go).
  void Prepare(const SandboxConfig& config, int count = 0);
  // A sandbox of the pool for `config` (null when none fits: spawn one
  // cold), told to take `config`'s candidate and `arena` once warm
  // (SandboxProcess::HandOffWhenWarm): the caller awaits it as after Spawn.
  // Does not wait, but for a zygote still warming when it has nothing
  // forked yet. With `refill`, another starts warming for the next caller.
  std::unique_ptr<SandboxProcess> Take(const SandboxConfig& config, const Arena& arena,
                                       bool refill);
  // Waits (up to `wait`) until no sandbox warming at normal priority could
  // compete with a measurement.
  void Settle(std::chrono::milliseconds wait);
  // Stops the sandboxes warming under SCHED_IDLE, for a host-bound
  // measurement (SandboxProcess::Pause), until Resume; Take resumes the one
  // it hands off.
  void Pause();
  void Resume();
  // How many of its sandboxes are paused now.
  int paused() const;
  // Turns warming off for good, with the reason users are told.
  void Disable(std::string why);

  bool enabled() const { return enabled_; }
  const std::string& disabled_reason() const { return disabled_reason_; }
  // The zygote's process id (0 when the pool has none), and why the last
  // one was let go ("" when none was).
  pid_t zygote_pid() const { return zygote_ ? zygote_->pid() : 0; }
  const std::string& zygote_failure() const { return zygote_failure_; }

 private:
  enum class Forked { kOne, kNotYet, kFailed };
  // One sandbox forked from the zygote into warm_; kNotYet while it warms
  // (only when not `waiting` for it).
  Forked ForkFromZygote(const SandboxConfig& config, bool waiting);
  Forked LetZygoteGo(std::string why);

  bool enabled_;
  int capacity_;
  bool idle_priority_;  // root: warm under SCHED_IDLE
  std::string key_;     // WarmKey of the config `warm_` was started for
  std::vector<std::unique_ptr<SandboxProcess>> warm_;
  std::unique_ptr<SandboxProcess> zygote_;  // for key_, when its config allows one
  bool zygote_failed_ = false;              // for key_: start sandboxes one by one
  std::chrono::milliseconds warm_wait_;
  std::string disabled_reason_, zygote_failure_;
};

// What a warm sandbox must share with the config it is handed: "" when the
// config cannot be served warm (not compat, no interpreter, a profiler).
std::string WarmKey(const SandboxConfig& config);

// HONE_WARM_SANDBOXES=0 in the environment turns warm sandboxes off (for
// comparisons); anything else, or nothing, leaves them on.
bool WarmSandboxesEnabled();
// HONE_ZYGOTE=0 likewise has every warm sandbox import for itself.
bool ZygotesEnabled();

}  // namespace hone
