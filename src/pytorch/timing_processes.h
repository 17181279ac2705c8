// Short calls timed in several sandbox processes.
//
// On a GPU each process's CUDA context times the same kernels with an
// offset of its own, stable for the process's life. On an H200 (the
// tinyctx probe, docs/PERFORMANCE.md) a 5.5 us pair of kernels measured
// 5.38 to 6.37 us from one context to the next, within 0.5% inside each;
// neither the tensors' placement nor the stream removed it. Samples from one
// process therefore cannot tell a 6 us candidate from its baseline to better
// than about 3%, however many there are. A side whose first process measured
// calls shorter than EvalOptions::short_call_seconds (20 us) is timed again in
// fresh processes (EvalOptions::short_call_processes in all) and the samples
// pooled, so the
// offsets average out (their spread falls as 1/sqrt(processes)). Above it
// the offset (a few hundred nanoseconds) is under 1% of a call.
//
// CPUs have offsets of their own per process too (code and data alignment),
// so the rule is the same on every backend. Applies to a PyTorch task's
// candidate and baselines (the evaluator and
// pytorch/baseline_stage.h spawn the processes). A native task's reference is
// timed interleaved with the candidate in one sandbox each; it is not
// re-spawned. Pure functions here.
#pragma once

#include <string>
#include <vector>

#include "compat/baseline_cache.h"
#include "run/eval_options.h"
#include "verify/verdict.h"

namespace hone {

// The most processes one side is timed in (--short-call-processes too).
inline constexpr int kMaxShortCallProcesses = 16;

// How many processes time a side whose first process measured `median`
// seconds per call: options.short_call_processes below
// options.short_call_seconds, twice as many (at most
// kMaxShortCallProcesses) below half of it, else 1. On an H100, relu+scale
// (7 us) against itself fell outside 1.00 +/- 0.03 in 2 of 22 evaluations
// with 4 processes a side, in none of 12 with 8 (docs/PERFORMANCE.md).
int TimingProcesses(const EvalOptions& options, double median);

// The samples of every process as one; the call overhead is the median of
// theirs.
TimingResult PoolTimings(const std::vector<TimingResult>& processes);

// `more` processes' timings of a baseline added to `first`'s.
void PoolBaselineTimings(BaselineTiming& first, const std::vector<BaselineTiming>& more);

// For the verdict's notes: "timed in 4 sandbox processes (medians ...)":
// each process's own median, so a reader sees the offsets that pooling
// averages, then the pooled median.
std::string TimingProcessesNote(const std::string& who, const std::vector<double>& medians,
                                double pooled_median, double short_call_seconds);

}  // namespace hone
