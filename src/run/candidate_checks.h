// What a candidate's calls must pass beyond returning 0 in time: the
// run-time checks of docs/VERIFICATION.md, one function each.
//  - Its results: outputs within tolerance of the reference's
//    (CheckOutputs), inputs unchanged (CheckInputsUnchanged), two runs on the
//    same inputs alike (NoteNondeterminism), its error against the float64
//    reference (CheckPrecision), nothing written outside its outputs
//    (CheckNoStrayWrites).
//  - Each call: its reported time within the worker's clock
//    (CheckReportWithinWall), a compat shim's span after its forward
//    (CheckPostMark), on CUDA its own kernels, the one stream it is given
//    and an idle device after it (CheckGpuCall).
//  - Work after return: CPU time between calls (counted by BeforeCall and
//    AfterHostCall) and threads still running (CheckNoWorkAfterReturn).
//  - Timed calls: the time the worker saw beyond the reports, against the
//    reference's (CheckReportedTimes; a compat candidate's on CUDA waits for
//    the eager baseline, CheckDeferredCallTime).
//
// On a device other processes share, the checks that compare a time with an
// allowance calibrated on an idle device (the worker's clock, the span after
// the mark, the device-wide synchronisation) judge beside the evidence of
// sharing() (measure/sharing_watch.h, measure/device_sharing.h): within what
// sharing added to hone's own probe calls the candidate passes, over that
// up to what the noisiest probes saw the verdict is busy (not decided), and
// beyond it fails as alone.
//
// A Check* returns false when the candidate failed it: the verdict is then
// decided (RunState::Decide) with a reason naming what was seen, and the
// failed check is in Verdict::checks. Some checks count across an
// evaluation's calls (one slow device sync is a note, the second rejects),
// so one CandidateChecks serves one evaluation. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "compat/baseline_cache.h"
#include "measure/sharing_watch.h"
#include "process/stray_writes.h"
#include "run/run_state.h"

namespace hone {

// What CheckReportedTimes compares beyond the two sides' timings: medians of
// the reported flush (ref_prepare < 0: there is no reference side), how much
// larger the candidate's line flush is, its launches per call, and (CPU
// backend; empty where not counted) the median CPU time its sandbox used per
// timed request beyond the reported call and flush. That median is negative
// when the sandbox was kept off a core inside its own measured span.
// `cand_prepare_cpu` (CPU backend) is the median CPU time per request
// outside the reported call: the flush and whatever ran before the clock.
struct ReportedTimeBounds {
  double ref_prepare = 0, cand_prepare = 0;
  double flush_ratio = 1;
  double launches = 0;
  std::optional<double> cand_cpu_beyond, cand_prepare_cpu;
  // Per timed call, the worker's clock beyond the reported time: the
  // candidate's, and the reference's when it was timed interleaved (else
  // empty). Beside a neighbour they are compared rank by rank.
  std::vector<double> cand_gaps, ref_gaps;
};

// What the worker's clock says of the candidate's timed calls: `extra` is its
// median time beyond the reports less the reference's, `allowed` the most
// the harness explains, `cpu_beyond` the sandbox's CPU time per call beyond
// the reports (empty: not counted; negative: it waited for a core even
// inside the span it reported). Time over `allowed` that the sandbox did not
// spend running (it waited for a core on a busy machine) is not hidden work.
enum class CallTimeJudgement { kWithin, kWaitedForCore, kUnaccounted };
// Whether the candidate's reported flush is long enough, against the
// reference's, to have held work moved out of the measured call: on the CPU
// only if its CPU time outside the call is as long too.
bool FlushHidesWork(const ReportedTimeBounds& b);
CallTimeJudgement JudgeCallTime(double extra, double allowed, std::optional<double> cpu_beyond);

class CandidateChecks {
 public:
  explicit CandidateChecks(RunState& state)
      : s_(state),
        sharing_({[&b = state.backend] { return b.Neighbours(); },
                  [&b = state.backend] { return b.ProbeSharing(); },
                  state.backend.machine().copy_bandwidth_gbs}) {}

  // Who else is on the device, read by the timing stages beside their calls.
  SharingWatch& sharing() { return sharing_; }

  // `check` is the kind recorded (kCorrect, kTimedOutput); a pass is recorded
  // when `record_pass`.
  bool CheckOutputs(const SetLayout& set, const Ids& actual, const Ids& expected,
                    const std::string& where, CheckKind check, bool record_pass = true);
  // The same of the outputs where they lie in the candidate's arena (slot
  // `set`), with no copy of them; a pass is recorded.
  bool CheckOutputsInArena(const SetLayout& set, const Ids& expected, const std::string& where,
                           CheckKind check);
  // Against the candidate's arena, where `set` lies.
  bool CheckInputsUnchanged(const SetLayout& set, const Ids& pristine, const std::string& where);
  // Keyed fingerprints of `set`'s outputs in the arena (process/arena.h),
  // for telling two runs apart without keeping a copy of the first; empty on
  // the arena's failure.
  std::vector<uint64_t> OutputFingerprints(const SetLayout& set);
  // Bitwise differences between two runs within tolerance (their
  // OutputFingerprints): a note-like check that passes (a race shows up as
  // disagreement, within tolerance or not).
  void NoteNondeterminism(const std::vector<uint64_t>& second, const std::vector<uint64_t>& first,
                          const std::string& where);
  // The outputs in the arena's slot `set` against the float64 reference.
  bool CheckPrecision(const SetLayout& set, const Ids& expected, const Ids& ref64,
                      const std::string& where);
  // After a call (or, `calls` > 1, after that many): false when it wrote
  // outside its outputs. Also counts what the watch cost.
  bool CheckNoStrayWrites(StrayWriteWatch& watch, const std::string& where, int calls = 1);

  bool CheckReportWithinWall(const CallOutcome& o, const std::string& during);
  // A compat call's span after the shim's end-of-forward mark is no longer
  // than copying the outputs of slot `set` takes.
  bool CheckPostMark(const CallOutcome& o, int set, const std::string& during);
  // The CUDA-only checks on a call: own kernels, one stream, nothing left
  // running on the device.
  bool CheckGpuCall(const CallOutcome& o, const std::string& during);

  // Where no launch is counted (the CPU): a compat candidate whose own
  // build failed (its extension, a kernel's JIT compile) and whose forward
  // returned anyway fell back to something else (PyTorch, the host): its
  // outputs are not its kernels', unless the task allows rule 'library'.
  // Checked once, after the first call that returned.
  bool CheckNoFallback(const std::string& during);

  // CPU time the sandbox spends between calls is work that escaped them:
  // counted from the end of one host call to the start of the next.
  void BeforeCall();
  void AfterHostCall(const CallOutcome& o);
  // Around hone's own requests between calls (a case's bindings: their
  // workspaces freed and made, which on a virtual machine costs milliseconds
  // of page-table work): that time is the harness's, not idle time.
  void PauseIdleCount();
  void ResumeIdleCount();
  // Once, after the last call.
  bool CheckNoWorkAfterReturn();

  bool CheckReportedTimes(const TimingResult& ref, const TimingResult& cand,
                          const ReportedTimeBounds& b);
  // A compat candidate's unreported host time beyond the native allowance,
  // judged once the eager baseline (null when there is none) says what
  // PyTorch's launches cost here.
  void CheckDeferredCallTime(const BaselineTiming* eager);

 private:
  bool CheckNothingBetweenCalls(const CallOutcome& o, const std::string& during);
  bool CheckOwnKernels(const CallOutcome& o, const std::string& during);
  bool CheckOneStream(const CallOutcome& o, const std::string& during);
  bool CheckDeviceIdle(const CallOutcome& o, const std::string& during);
  bool CheckReportedFlush(const ReportedTimeBounds& b);
  // The reported_time check's outcome: `extra` against `allowed` (beside
  // any neighbours), recorded, and on failure the verdict. Beside a
  // neighbour the candidate's `cand_gaps` are compared rank by rank with
  // `ref_gaps` (timed beside the same neighbour), or, empty, with hone's
  // probe calls (measure/device_sharing.h's CompareGaps): JudgeGapsBeside.
  bool JudgeCallTimeBeside(double extra, double allowed, const std::string& detail,
                           double reported_median, const std::vector<double>& cand_gaps,
                           const std::vector<double>& ref_gaps);
  bool JudgeGapsBeside(double extra, double allowed, const std::string& detail,
                       double reported_median, const std::vector<double>& cand_gaps,
                       const std::vector<double>& ref_gaps, const DeviceSharing& sharing);
  bool RecordCallTime(bool ok, const std::string& detail, double reported_median);
  // The verdict busy: `what` (a time over its idle allowance) cannot be told
  // from hidden work beside the neighbours `sharing` describes.
  void DecideBusy(const std::string& what, const DeviceSharing& sharing);
  // CheckOutputs' judgement of outputs 0 to `outputs` - 1, given how to
  // compare output i.
  bool CheckEachOutput(const SetLayout& set, size_t outputs, const std::string& where,
                       CheckKind check, bool record_pass,
                       const std::function<Mismatch(size_t, const Tolerance&)>& compare);

  RunState& s_;
  SharingWatch sharing_;
  bool fallback_checked_ = false;
  int busy_post_marks_ = 0;  // spans after the mark too long to tell apart, beside neighbours
  bool shared_post_noted_ = false;  // a span after the mark within sharing's allowance, noted
  // Drawn per evaluation, where the candidate cannot see it.
  const uint64_t fingerprint_key_ =
      (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  int slow_syncs_ = 0;       // device-wide syncs after a call that took too long
  int long_post_marks_ = 0;  // compat calls whose span after the forward's end was too long
  uint64_t cpu_after_call_ = 0;
  bool idle_paused_ = false;  // a count was open when PauseIdleCount closed it
  uint64_t idle_cpu_nanos_ = 0;
  double call_seconds_ = 0;  // CPU backend: the candidate's calls, as reported
  // Set by CheckReportedTimes for CheckDeferredCallTime.
  struct DeferredCallTime {
    double extra = 0, allowed = 0, launches = 0, median = 0;
    std::string detail;
    std::vector<double> gaps;
  };
  std::optional<DeferredCallTime> deferred_call_time_;
};

}  // namespace hone
