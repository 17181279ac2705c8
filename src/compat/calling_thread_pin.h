// One CPU shared by the two sides of an interleaved host-bound timing.
//
// A host-bound GPU call (one whose launches outrun no hold kernel: level 3's
// RNNs, SwinV2) times the host's launch rate, and on the device tool's
// virtual machines that rate follows the virtual CPU the calling thread runs
// on: two processes of the same LSTM, timed call by call in turn, gave
// medians 0.85-1.24x apart, each steady within itself; with both calling
// threads pinned to one CPU they gave 0.995-1.010x (docs/PERFORMANCE.md,
// "Host-bound calls: the CPU they run on"). So the evaluator pins the
// candidate's and the eager Model's calling threads to one CPU while it
// times them beside each other; their calls alternate, so they never run
// there at once.
//
// A pin claims its CPU in this process (bench lanes are threads of one
// process, each evaluating on its own GPU), so two pins alive at once get
// different CPUs while there are enough. Workers in separate processes
// start their search at a CPU picked by `spread` (the GPU's bus id) and may
// still meet on one; that costs them only while both time host-bound calls
// at once. The destructor restores each thread's CPUs and releases the
// claim. Thread-safe between pins; one pin is used by one thread.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

class CallingThreadPin {
 public:
  // Claims a CPU of this process's allowed set that no other live pin holds,
  // searching down from the highest (CPU 0 takes most interrupts), started
  // at an offset picked by `spread`. NotFound when every CPU is claimed or
  // the allowed set cannot be read.
  static Result<std::unique_ptr<CallingThreadPin>> Claim(const std::string& spread);
  ~CallingThreadPin();
  CallingThreadPin(const CallingThreadPin&) = delete;
  CallingThreadPin& operator=(const CallingThreadPin&) = delete;

  int cpu() const { return cpu_; }
  // Pins thread `tid` (a sandbox's main thread: its pid) to cpu(), keeping
  // its CPUs to restore. An error names the thread and what the kernel said
  // (a sandbox in another user namespace may refuse); nothing is changed then.
  Status Pin(pid_t tid);
  // The pinned threads whose CPUs are no longer only cpu() (the thread
  // changed them itself); a thread that has exited is not counted.
  std::vector<pid_t> Strayed() const;

 private:
  struct Pinned {
    pid_t tid;
    cpu_set_t before;
  };
  explicit CallingThreadPin(int cpu) : cpu_(cpu) {}
  int cpu_;
  std::vector<Pinned> pinned_;
};

}  // namespace hone
