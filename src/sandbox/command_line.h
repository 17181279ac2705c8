// The sandbox program's command line: what the worker passes to a sandbox it
// starts (run/sandbox_launcher.cc, process/sandbox_process.cc) and what a
// warm sandbox receives at its hand-off (wire/handoff.h). Parsing only: the
// options are applied by sandbox/main.cc and the files it calls.
//
// Threads: the calling thread. Failure: ParseArgs returns false on an
// unknown flag or a missing descriptor; the caller ends the process.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hone::sandbox {

struct Options {
  int ctl_in = -1, ctl_out = -1, arena_fd = -1, library_fd = -1;
  size_t arena_bytes = 0, llc_bytes = 0;
  std::string library_dir, scratch;
  std::vector<std::string> read_dirs;
  bool seccomp = true, landlock = true, netns = true;
  bool keep_user = false;           // --profile: an outside profiler must still reach the process
  std::string cuda_pci, arena_ipc;  // CUDA mode when cuda_pci is set
  std::vector<std::string> kernels;
  // A compat candidate (compat/compat_candidate.h): its library starts Python
  // and may build an extension while it loads, so the filter comes after.
  bool compat = false;
  // A warm sandbox (process/warm_pool.h): Python started from prewarm_python,
  // running prewarm_runner's hone_compat_prewarm(), before the rest of the
  // options (and the candidate) arrive on handoff_fd. The memory limit
  // comes with them.
  int handoff_fd = -1;
  std::string prewarm_python, prewarm_runner;
  bool prewarm_idle = false;  // warming under SCHED_IDLE: back to normal at the hand-off
  // Warmed, fork warm sandboxes on request instead (sandbox/zygote.h).
  bool zygote = false;
  size_t rlimit_as = 0, rlimit_data = 0;
  // --standalone-tensor: one call on tensors of the sandbox's own, under
  // compute-sanitizer (sandbox/cuda/standalone.h); no worker protocol.
  std::vector<std::string> standalone;
  std::string library_path;  // standalone: the candidate, by path
  bool cuda() const { return !cuda_pci.empty(); }
};

// Parses argv[1..argc) into `o`, on top of what it holds (a hand-off parses
// the rest of a warm sandbox's command line into the options it started
// with). False when a flag is unknown or the descriptors a mode needs are
// missing.
bool ParseArgs(int argc, char** argv, Options& o);

}  // namespace hone::sandbox
