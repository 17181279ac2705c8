// Nsight Compute (ncu --csv) over one call of a CUDA candidate on its timed
// case, in `hone-sandbox-cuda --standalone-tensor` (sandbox/cuda/standalone.h):
// the metric set of docs/PROFILING.md per kernel launched, read back into a
// ProfileReport (measure/profile.h).
//
// Confinement: ncu's code injected into the process talks to the ncu
// front end over a socket and keeps files of its own, which the base
// seccomp filter, Landlock and the network namespace all stop (measured on
// the H100/H200: the call dies). The profiled process therefore runs as the
// unprivileged user with the sandbox's resource limits and a clean
// environment, without those three. The code it runs has already passed
// the strict sandbox's verification, and nothing it does here can change
// its verdict: the profile is advice for the next prompt, never a check.
//
// Never while timing, and one profile per GPU at a time across processes
// (a lock file per PCI bus id): profilers reserve the GPU's counters.
// Expected failures (ncu missing, no permission for the counters, a crash,
// a timeout) come back in ProfileReport::not_run. Thread-safe.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "measure/profile.h"
#include "tools/standalone_call.h"

namespace hone {

struct NcuJob {
  std::filesystem::path ncu;
  // The profiled call; RunNcu adds the --no-* confinement flags it needs.
  StandaloneCall call;
  // Where ncu writes its report (--log-file): a folder the sandbox cannot
  // write, so the profiled code can neither fake nor garble its metrics.
  std::filesystem::path report_dir;
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
  // Kernels profiled at most: each is replayed once per metric pass.
  int max_kernels = 64;
  // Only kernels launched between cudaProfilerStart and Stop (ncu
  // --profile-from-start off): a ModelNew's forward, which its shim
  // brackets, without the Python process's loading and warm-up.
  bool between_profiler_marks = false;
};

// The `ncu` arguments (before the sandbox's command line).
std::vector<std::string> NcuArguments(const NcuJob& job);
// The whole command line RunNcu runs: the call's environment
// (StandaloneEnvironment), ncu with NcuArguments, the sandbox's call.
std::vector<std::string> NcuCommand(const NcuJob& job);

// Runs the job; the report has no diagnosis yet (measure/profile_judge.h).
ProfileReport RunNcu(const NcuJob& job);

// ncu's CSV (--csv --print-units base; one row per kernel launch and
// metric, among its own other lines) read into kernels, longest first,
// with the duration-weighted summary. A Status when no row is in it.
Status ReadNcuCsv(const std::string& output, ProfileReport& report);

// How long a profile may take: HONE_PROFILE_TIMEOUT seconds when positive,
// else 120 s.
std::chrono::milliseconds ProfileTimeout();

}  // namespace hone
