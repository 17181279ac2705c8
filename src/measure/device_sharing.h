// Whether the device was shared while hone measured on it, and what sharing
// cost a context of hone's own there, as the trusted side measured it in
// the same conditions. The checks whose allowances were calibrated on an
// idle device (the worker's clock around a timed call, the span after a
// compat forward's end mark) read it before they decide a verdict
// (docs/VERIFICATION.md, "A shared GPU"):
//  - alone (no other process on the device), they judge exactly as before;
//  - shared, what the same conditions added to hone's own probe calls
//    widens the allowance: a candidate within it passes, with a note;
//  - beyond that, up to what the noisiest probes saw, the time cannot be
//    told from hidden work: the verdict is busy, retryable, never a reward;
//  - beyond that, the candidate fails as it would alone: a hack keeps its
//    verdict beside a neighbour.
// Only other processes make a device shared: a sandbox cannot start one
// (sandbox/policy.cc forbids fork and exec), so a candidate cannot fake a
// neighbour, and its own work between calls is counted apart (a launch
// outside its calls is rejected).
//
// Plain values and pure functions. The CUDA backend fills them (NVML's
// process lists, and probe calls the worker makes in its own context between
// the candidate's timed calls); the unit tests simulate them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace hone {

// The device's processes as its driver lists them.
struct DeviceNeighbours {
  bool known = false;        // the driver could list them
  int others = 0;            // not this hone process nor one of its children
  int64_t others_bytes = 0;  // device memory the others hold (0: not reported)
};

// One probe call the worker made in its own context, shaped like a sandbox's
// held call (a hold kernel, the cache flush, two events, the release): how
// long the host waited beyond the events' span, which on an idle device is
// the launch and synchronisation (tens of microseconds) and beside a busy
// context is also the wait for a time slice; and a device-to-device copy of
// a fixed size timed by events, whose time against the machine's measured
// bandwidth is the share of bandwidth hone gets.
// The bytes a probe's copy moves (read, and written again: twice this).
inline constexpr size_t kProbeCopyBytes = size_t{32} << 20;

struct SharingProbe {
  double wait_seconds = 0;
  double copy_seconds = 0;
};

// What one timing saw of sharing: the neighbours (the most seen at its start
// and end) and the probes made beside its calls.
struct DeviceSharing {
  DeviceNeighbours neighbours;
  std::vector<SharingProbe> probes;
  // The probe's copy at the machine's measured bandwidth (0: unknown).
  double idle_copy_seconds = 0;

  bool shared() const { return neighbours.others > 0; }
  // The probes' waits: median, 10th and 90th percentiles (0 without probes).
  double WaitMedian() const;
  double WaitLow() const;
  double WaitHigh() const;
  // The probes' median copy over the idle copy, at least 1 (1: unknown).
  double CopySlowdown() const;
  // "the GPU was shared: 1 other process (16.0 GB); hone's own probe calls
  // waited 2.370 ms for it (median of 70; 2.300 ms to 2.400 ms from the 10th to
  // the 90th percentile) and copied at 75% of this machine's bandwidth".
  // Empty when not shared.
  std::string Describe() const;
};

// How a measured time compares with its allowance on a device that may be
// shared.
enum class SharedJudgement {
  kWithin,        // within the idle allowance: as alone
  kWithinShared,  // over it, within what sharing added to hone's own probes
  kBusy,          // over that, within what the noisiest probes saw: not decided
  kExceeded,      // beyond: the candidate fails the check, shared or not
};

// `measured` against `idle_allowed`; on a shared device (`shared`), over it
// by at most `shared_extra` is kWithinShared and by at most `busy_extra`
// (at least `shared_extra`) kBusy. Not shared: kWithin or kExceeded only.
SharedJudgement JudgeBesideNeighbours(double measured, double idle_allowed, double shared_extra,
                                      double busy_extra, bool shared);

// The allowances a timing check adds on a shared device for a span that
// waits for the device once. Time slicing makes every call wait about the
// same (a neighbour's slice: 2.4 ms on an H100 beside a copy loop), so what
// hidden work cannot hide in is the waits' spread (90th less 10th
// percentile), and their level (median) on top, as the span judged waited
// once too. Within: the level and the spread; busy: the level and twice the
// spread. (The worker's clock around a timed call is judged rank by rank
// instead: JudgeGapsBeside.)
struct SharedAllowance {
  double within = 0, busy = 0;
};
SharedAllowance WaitAllowance(const DeviceSharing& sharing);
// For a span that copies `idle_copy_seconds` of data: the copy slowed as
// hone's probes were, and a wait for the device on top.
SharedAllowance CopyAllowance(const DeviceSharing& sharing, double idle_copy_seconds);

// Rank by rank, how much later the candidate's per-call times beyond its
// reports (its gaps) lie than a base measured beside the same neighbour: the
// reference's gaps, timed interleaved with the candidate's, or hone's probe
// calls' waits above the least of them. Time slicing makes waits bimodal (a
// whole slice or almost none), so two medians of one distribution can lie a
// slice apart, and a median or a spread cannot tell a slice from hidden
// work; hidden work shifts every rank of the candidate's gaps, waiting does
// not. The shift is bounded as a one-sided Kolmogorov-Smirnov band would:
// the least d such that, at every time t, the share of the candidate's gaps
// under t + d is at least the base's share under t less `band`.
// -infinity when the band covers everything (band >= 1).
double ShiftBound(std::vector<double> cand, std::vector<double> base, double band);

// The bound at two bands, from the samples' sizes: `pass` is the shift at a
// band an honest candidate exceeds about once in a thousand evaluations
// (and at most 0.3, so that hiding work in every call always shows), and
// `reject` at one it exceeds about once in a million. `least_apart`: how
// far the candidate's least gap lies from the nearest of the base's gaps
// (negative when below them all). `top_over`: how far the candidate's k-th
// largest gap lies above the base's second largest, k the least for which
// two samples of one distribution put it there about once in a million
// (22 of 100 beside 100), which is `top_rank`; -infinity (and 0) when no k
// is that rare.
struct GapShift {
  double pass = 0, reject = 0, least_apart = 0;
  double top_over = -std::numeric_limits<double>::infinity();
  size_t top_rank = 0;
};
GapShift CompareGaps(std::vector<double> cand, std::vector<double> base);
// Within when the pass bound is within `idle_allowed` (kWithin where the
// medians' difference `median_extra` is too, else kWithinShared); kExceeded
// when the reject bound is over it and the candidate's least gap lies over
// it from every gap of the base, or when the pass bound is over it and the
// candidate's top ranks lie over it above the base's (`top_over`, itself
// rare once in a million); kBusy otherwise. The conditions on the gaps are
// for sides whose calls wait for a slice in different shares (their
// sandboxes' contexts meet the neighbour's slices at different moments of
// the interleaving): a candidate that waits more often, but never longer,
// has even its least gap where some of the reference's lie and its longest
// waits no longer than the reference's, while work hidden in every call
// moves its least gap off a base of two clusters, or, where waits spread
// over the whole slice (an H100 beside a copy loop: 1.1 ms to 2.4 ms from
// the 10th to the 90th percentile), lifts a fifth of its calls above the
// longest wait the base saw: no call waits longer than the neighbour's
// slice. Work hidden in all but a few calls, or hiding as long as a slice
// in calls that did not wait, is then busy, not rejected: no reward either
// way.
//
// The top ranks are judged only against the reference's gaps
// (`against_reference`): its calls are held and released as the
// candidate's, so each waits before its report starts at most as often. A
// compat call (a Python forward, its launches, its marks) may wait for the
// neighbour more than once where hone's probe calls wait once: beside the
// copy loop honest FlashInfer-Trace solutions had a sixth of their calls
// 1.2 ms above the probes' longest wait, so against the probes only the
// least gap decides.
SharedJudgement JudgeGapsBeside(const GapShift& shift, double idle_allowed, double median_extra,
                                bool against_reference);
// The evidence a judgement beside a neighbour weighed, for the verdict's
// notes and for calibrating the rule: both sides' gaps at a few ranks,
// "the worker's clock beyond the reports per call (least / 10th / median /
// 90th percentile / most, and how many): the candidate's ...; BASE_NAME ...".
std::string DescribeGapRanks(const std::vector<double>& cand, const std::vector<double>& base,
                             const std::string& base_name);
// The probes' waits less the least of them: the base for a candidate with no
// reference timed beside it (the least is the launch and synchronisation an
// idle device costs too, which the idle allowance already covers).
std::vector<double> ProbeWaitsAboveLeast(const DeviceSharing& sharing);
// How many gaps a timing takes on a shared device, so that the bands above
// are narrow enough to decide: at 100 a side the reject band is 0.37, and a
// candidate hiding work in every call is rejected however its waits split
// between a slice and none (with 64, one in fifteen was only busy when they
// split evenly, in simulation).
inline constexpr int kSharedMinCalls = 100;

}  // namespace hone
