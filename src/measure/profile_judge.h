// The judge: turns a profile (measure/profile.h) into a short diagnosis for
// the next prompt: what limits the kernel (memory-bound, compute-bound,
// underutilised, near a ceiling), the numbers that show it, and the likely
// fix. Rules, not a model: the thresholds follow KernelAgent's roofline
// reading (both speed-of-light shares under 60%: underutilised) and are
// listed with their reasons in docs/PROFILING.md. Pure functions.
#pragma once

#include <string>

#include "measure/profile.h"

namespace hone {

struct JudgeContext {
  // Which rules read the counters: a GPU profiler's (ncu: speed-of-light
  // shares, occupancy) or, with `host_counters`, the host's perf_event ones
  // (threads, IPC, cache misses): the backend's profiler (BackendTraits::profiler).
  bool host_counters = false;
  // hone's own speed of light for the timed case (Verdict::sol_percent);
  // 0 when the task declares no cost.
  double sol_percent = 0;
  // The bytes the task must move per call (its [cost] bytes); 0: unknown.
  double ideal_bytes = 0;
  int cores = 0;  // CPU: the cores the candidate may use; GPU: its SMs
};

// Shares of peak at or above this are "near the ceiling": little is left
// in the kernel's formulation, only in moving fewer bytes or doing less.
inline constexpr double kNearCeilingPct = 75;
// A memory-bound kernel that hone's timing puts at this share of the task's
// speed of light (bytes over the machine's measured copy bandwidth) is near
// the memory ceiling whatever ncu's DRAM share says: that share is of the
// theoretical peak, of which an H200 streams about 70-75%.
inline constexpr double kNearSolPct = 90;
// Both shares below this: the kernel keeps neither memory nor the SMs busy.
inline constexpr double kUnderutilisedPct = 60;

ProfileDiagnosis JudgeProfile(const ProfileReport& report, const JudgeContext& context);

// The diagnosis and its evidence as the prompt and `hone report` show them,
// a few lines; empty when the profile did not run.
std::string DiagnosisText(const ProfileReport& report);

}  // namespace hone
