#include "run/candidate_checks.h"

#include <algorithm>
#include <thread>

#include "compat/compat_candidate.h"
#include "core/wording.h"
#include "verify/note_words.h"

namespace hone {
namespace {

// Idle OpenMP threads sleep (OMP_WAIT_POLICY=PASSIVE), so an honest
// candidate uses next to nothing between calls. Work moved to a thread that
// outlives the call uses about as much CPU as the calls would have, so the
// limit may grow with the calls' own time without letting that through; the
// allowance absorbs a loaded machine's wake-ups and thread hand-offs.
constexpr double kIdleCpuLimitMs = 5;
constexpr double kIdleCpuShareOfCalls = 0.05;
// Time the worker sees a timed call take beyond what the sandbox reports, over
// the reference's: a harness's jitter, the candidate's own host-side launch
// work (hidden from the events by the hold kernel on CUDA), and no more.
constexpr double kUnreportedFloorSeconds = 500e-6;
constexpr double kUnreportedShare = 0.5;
constexpr double kUnreportedPerLaunchSeconds = 10e-6;
// A compat candidate launches through PyTorch's dispatcher (23-65 us a
// launch under the hold on an H100 for level-3 models): up to as many
// launches as the eager Model makes may each cost what one of the Model's
// costs, with this margin, and never less than the floor: the same model's
// host time per launch differs between two processes by up to 2x (ResNet-18:
// 23.7 us in its baseline's, 46 us in its candidate's).
constexpr double kEagerLaunchMargin = 2.0;
constexpr double kEagerLaunchFloorSeconds = 30e-6;
// What may follow a compat shim's end-of-forward mark: copying the outputs
// at the measured copy bandwidth, with room for the launches and Python
// around the copies. Also the Python a CPU compat candidate's unheld call
// pays around its forward: 0.4-0.8 ms on a loaded 2-core Intel VM, about
// twice that on a 2-core AMD VM where page faults cost 8-20 us (an honest
// load_inline file's calls were 2.06 ms beyond their reported time against
// 1.94 ms allowed at 1 ms), and at 2 ms two honest load_inline files under
// a fresh clone's test load were 3.56 and 3.59 ms beyond against 2.61 and
// 2.72 ms allowed, hence 4 ms. On CUDA calls are held and this allowance
// does not apply to them.
constexpr double kCompatShimCpuSeconds = 4e-3;
constexpr double kPostMarkCopyShare = 2.0;
// GPU event time, which includes the shim's Python between the mark and the
// copy (132 and 137 us seen on an H100 for one tiny output; the runner
// refuses tensor subclasses, so no candidate code runs after the mark).
constexpr double kPostMarkFloorSeconds = 300e-6;
// The CPU, or an unheld GPU call: Python, and a loaded machine.
constexpr double kPostMarkCpuFloorSeconds = 1000e-6;
constexpr double kPostMarkPerOutputSeconds = 50e-6;
// Over-long spans after the mark an evaluation may show before it is
// rejected: one is noise (the host preempted between forward and copy);
// work moved out of the forward is there on every call.
constexpr int kLongPostMarksToReject = 2;
// A device-wide synchronisation of an idle GPU takes a few microseconds.
constexpr double kEscapedWorkFloorSeconds = 200e-6;
// Slow device syncs after a call (escaped work) an evaluation may show before
// it is rejected: one is noise (another context on the GPU, preemption).
constexpr int kSlowSyncsToReject = 2;

// A negative figure: the sandbox was kept off a core even inside the span
// it reported, so it did no work outside it.
std::string CpuBeyondWords(double cpu_beyond) {
  if (cpu_beyond <= 0)
    return "the sandbox used no CPU time beyond the reported time (it waited for a core "
           "inside its calls too)";
  return "the sandbox's CPU time beyond the reported time was " + Seconds(cpu_beyond) + " per call";
}

}  // namespace

bool CandidateChecks::CheckOutputs(const SetLayout& set, const Ids& actual, const Ids& expected,
                                   const std::string& where, CheckKind check, bool record_pass) {
  return CheckEachOutput(set, actual.size(), where, check, record_pass,
                         [&](size_t i, const Tolerance& tol) {
                           return s_.store->Compare(actual[i], expected[i], tol);
                         });
}

bool CandidateChecks::CheckOutputsInArena(const SetLayout& set, const Ids& expected,
                                          const std::string& where, CheckKind check) {
  return CheckEachOutput(
      set, set.outputs.size(), where, check, true, [&](size_t i, const Tolerance& tol) {
        return s_.store->CompareInArena(*s_.cand.arena, set.outputs[i].offset, expected[i], tol);
      });
}

bool CandidateChecks::CheckEachOutput(
    const SetLayout& set, size_t outputs, const std::string& where, CheckKind check,
    bool record_pass, const std::function<Mismatch(size_t, const Tolerance&)>& compare) {
  for (size_t i = 0; i < outputs; ++i) {
    const TensorDecl& d = s_.task.outputs[i];
    Tolerance tol = s_.task.ToleranceFor(d.dtype);
    Mismatch m = compare(i, tol);
    if (!s_.StoreHealthy()) return false;
    s_.v.precision.max_abs_error = std::max(s_.v.precision.max_abs_error, m.max_abs_err);
    s_.v.precision.max_rel_error = std::max(s_.v.precision.max_rel_error, m.max_rel_err);
    if (m.ok) continue;
    const auto& shape = set.outputs[i].shape;
    if (WithinMatchedRatio(m, tol)) {
      s_.v.checks.push_back({{check},
                             where,
                             true,
                             "output '" + d.name + "': " + std::to_string(m.num_bad) + " of " +
                                 std::to_string(m.checked) +
                                 " elements outside atol/rtol, within the required "
                                 "matched ratio " +
                                 Num(tol.required_matched_ratio)});
      continue;
    }
    std::string detail = "output '" + d.name + "' " + ShapeString(shape) + ": " +
                         std::to_string(m.num_bad) + " of " + std::to_string(m.checked) +
                         " elements wrong; first at " + IndexString(m.first_bad, shape) +
                         ": expected " + Num(m.expected_at_first) + ", got " +
                         Num(m.actual_at_first) + "; among finite elements max abs error " +
                         Num(m.max_abs_err) + ", max rel error " + Num(m.max_rel_err) + " (atol " +
                         Num(tol.atol) + ", rtol " + Num(tol.rtol) + ")";
    if (m.nan_or_inf > 0)
      detail += "; " + std::to_string(m.nan_or_inf) +
                " NaN/Inf where the reference is finite (unwritten outputs are poisoned with NaN)";
    // Every element close, none within tolerance: rounding, not a bug. Say
    // what in the candidate's language computes in lower precision.
    constexpr double kCloseRelError = 1e-2;
    if (m.nan_or_inf == 0 && m.max_rel_err < kCloseRelError && IsFloating(d.dtype) &&
        !s_.language.hints.precision_hint.empty())
      detail +=
          "; every element is within 1% of the reference, as lower-precision arithmetic "
          "leaves it (" +
          s_.language.hints.precision_hint + ")";
    s_.v.checks.push_back({{check}, where, false, detail});
    s_.Decide(VerdictStatus::kIncorrect, detail + " [" + where + "]");
    return false;
  }
  if (record_pass) s_.v.checks.push_back({{check}, where, true, ""});
  return true;
}

bool CandidateChecks::CheckInputsUnchanged(const SetLayout& set, const Ids& pristine,
                                           const std::string& where) {
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    const Placement& p = set.inputs[i];
    int64_t first = -1;
    int64_t n = s_.store->CountDifferentInArena(pristine[i], *s_.cand.arena, p.offset, &first);
    if (!s_.StoreHealthy()) return false;
    if (n == 0) continue;
    std::string detail = "input '" + p.name + "' was modified: " + std::to_string(n) + " of " +
                         std::to_string(p.numel) + " elements changed, first at " +
                         IndexString(first, p.shape) + " (inputs are read-only)";
    s_.v.checks.push_back({{CheckKind::kInputsUnchanged}, where, false, detail});
    s_.Decide(VerdictStatus::kIncorrect, detail + " [" + where + "]");
    return false;
  }
  return true;
}

std::vector<uint64_t> CandidateChecks::OutputFingerprints(const SetLayout& set) {
  std::vector<ArenaRange> ranges;
  for (const auto& p : set.outputs) ranges.push_back({p.offset, p.bytes});
  std::vector<uint64_t> out;
  if (!s_.cand.arena->Fingerprint(ranges, fingerprint_key_, &out)) out.clear();
  return out;
}

void CandidateChecks::NoteNondeterminism(const std::vector<uint64_t>& second,
                                         const std::vector<uint64_t>& first_run,
                                         const std::string& where) {
  if (second.size() != first_run.size()) return;  // the arena failed; its Sync says why
  for (size_t i = 0; i < second.size(); ++i) {
    if (second[i] == first_run[i]) continue;
    s_.v.checks.push_back(
        {{CheckKind::kDeterministic},
         where,
         true,
         "output '" + s_.task.outputs[i].name +
             "' differs bitwise between two runs on the same inputs (both within tolerance)"});
  }
}

bool CandidateChecks::CheckPrecision(const SetLayout& set, const Ids& expected, const Ids& ref64,
                                     const std::string& where) {
  for (size_t i = 0; i < s_.task.outputs.size(); ++i) {
    Dtype t = s_.task.outputs[i].dtype;
    if (!IsFloating(t)) continue;
    double ref_err = s_.store->RelativeL2(expected[i], ref64[i]);
    double cand_err =
        s_.store->RelativeL2InArena(*s_.cand.arena, set.outputs[i].offset, t, ref64[i]);
    if (!s_.StoreHealthy()) return false;
    double bound = std::max(s_.task.ToleranceFor(t).precision, 8 * ref_err);
    s_.v.precision.error = std::max(s_.v.precision.error, cand_err);
    s_.v.precision.bound = std::max(s_.v.precision.bound, bound);
    if (!(cand_err > bound)) continue;
    std::string detail =
        "output '" + s_.task.outputs[i].name + "': relative L2 error " + Num(cand_err) +
        " against a float64 reference exceeds " + Num(bound) + " (the task's reference has " +
        Num(ref_err) + "); the candidate computes in lower precision than " +
        std::string(DtypeName(t)) +
        (s_.language.hints.precision_hint.empty() ? ""
                                                  : " (" + s_.language.hints.precision_hint + ")");
    s_.v.checks.push_back({{CheckKind::kPrecision}, where, false, detail});
    s_.Decide(VerdictStatus::kIncorrect, detail + " [" + where + "]");
    return false;
  }
  return true;
}

bool CandidateChecks::CheckNoStrayWrites(StrayWriteWatch& watch, const std::string& where,
                                         int calls) {
  std::optional<ArenaSpan> hit = watch.After();
  s_.v.guard.calls += calls;
  s_.v.guard.seconds += watch.TakeSeconds();
  s_.v.guard.bytes = std::max(s_.v.guard.bytes, static_cast<uint64_t>(watch.watched_bytes()));
  if (!hit) return true;
  std::string detail = "wrote outside its output buffers: " + hit->name + " (" +
                       std::to_string(hit->bytes) + " bytes hone watches) changed " +
                       (calls > 1 ? "over " + std::to_string(calls) + " calls" : "during the call");
  s_.v.checks.push_back({{CheckKind::kNoStrayWrites}, where, false, detail});
  s_.Decide(VerdictStatus::kRuntimeError, detail + " [" + where + "]");
  return false;
}

bool CandidateChecks::CheckReportWithinWall(const CallOutcome& o, const std::string& during) {
  // The sandbox reports its own time; it cannot exceed what the worker saw.
  if (!(o.reported_seconds + o.prepare_seconds + o.post_mark_seconds >
        o.wall_seconds * 1.01 + 1e-4))
    return true;
  s_.Decide(VerdictStatus::kRejected,
            "timing tampered with: the sandbox reported " + Seconds(o.reported_seconds) +
                " for a call the worker saw take " + Seconds(o.wall_seconds) + " " + during);
  return false;
}

bool CandidateChecks::CheckPostMark(const CallOutcome& o, int set, const std::string& during) {
  // After its mark the shim only copies the model's results into hone's
  // outputs: a copy's time, give or take the launches and Python around it.
  double bytes = 0;
  for (const auto& p : s_.cand.sets[static_cast<size_t>(set)].outputs)
    bytes += static_cast<double>(p.bytes);
  const double bandwidth = s_.backend.machine().copy_bandwidth_gbs * 1e9;
  const double copy = bandwidth > 0 ? 2 * bytes / bandwidth : 0;
  // Unheld (side streams), the GPU waits for the host's Python between the
  // mark and the copy, and the events measure that wait too.
  const double floor =
      s_.backend.traits().held_calls && o.held ? kPostMarkFloorSeconds : kPostMarkCpuFloorSeconds;
  const double allowed = kPostMarkCopyShare * copy + floor +
                         kPostMarkPerOutputSeconds * static_cast<double>(s_.task.outputs.size());
  if (o.post_mark_seconds <= allowed) return true;
  std::string took = Seconds(o.post_mark_seconds) +
                     " passed after the end of the model's forward was marked, where copying its " +
                     Gigabytes(static_cast<int64_t>(bytes)) + " of outputs takes about " +
                     Seconds(copy) + " (allowed " + Seconds(allowed) + ")";
  // Beside another process the copy shares the GPU: judged against what
  // sharing did to hone's own copies and waits, measured now.
  const DeviceSharing& sharing = sharing_.Evidence();
  const SharedAllowance more = CopyAllowance(sharing, kPostMarkCopyShare * copy);
  switch (JudgeBesideNeighbours(o.post_mark_seconds, allowed, more.within, more.busy,
                                sharing.shared())) {
    case SharedJudgement::kWithin:
      return true;
    case SharedJudgement::kWithinShared:
      if (!shared_post_noted_)
        s_.v.AddNote(
            notes::PostMarkWithinShared(took, during, sharing.Describe(), allowed + more.within));
      shared_post_noted_ = true;
      return true;
    case SharedJudgement::kBusy:
      if (++busy_post_marks_ < kLongPostMarksToReject) return true;
      DecideBusy("after the end of the model's forward was marked " + during + ", " + took,
                 sharing);
      return false;
    case SharedJudgement::kExceeded:
      if (sharing.shared())
        took += "; beside another process, " + Seconds(allowed + more.busy) + " at most (" +
                sharing.Describe() + ")";
      break;
  }
  if (++long_post_marks_ < kLongPostMarksToReject) {
    s_.v.AddNote(notes::PostMarkOnce(during, took));
    return true;
  }
  s_.Decide(VerdictStatus::kRejected,
            "work was moved out of the timed forward " + during + ": " + took);
  return false;
}

bool CandidateChecks::CheckGpuCall(const CallOutcome& o, const std::string& during) {
  if (s_.v.kernels_launched.empty()) s_.v.kernels_launched = o.detail;
  if (!(s_.v.sandbox.features & wire::kFeatureLaunchTracking)) return true;  // reported as missing
  return CheckNothingBetweenCalls(o, during) && CheckOwnKernels(o, during) &&
         CheckOneStream(o, during) && CheckDeviceIdle(o, during);
}

// A thread that outlives hone_forward and launches kernels does work no
// call is timed for, and on a shared GPU would slow hone's own probe calls
// between the candidate's (measure/device_sharing.h): never allowed.
bool CandidateChecks::CheckNothingBetweenCalls(const CallOutcome& o, const std::string& during) {
  if (!o.launched_between) return true;
  s_.Decide(VerdictStatus::kRejected,
            "kernels were launched between calls, before the call " + during +
                ": a thread kept launching GPU work after hone_forward returned; all work must be "
                "done inside the call, on the stream it is given");
  return false;
}

bool CandidateChecks::CheckOwnKernels(const CallOutcome& o, const std::string& during) {
  if (o.own_launches == 0 && !s_.LibraryAllowed()) {
    std::string why;  // a compat file whose build failed and fell back to PyTorch says so
    if (s_.compat)
      for (const auto& failure : ReadCompatEvents(s_.cand.sandbox->log()).failures)
        why += "; " + failure;
    s_.Decide(VerdictStatus::kRejected,
              "launched no kernel of its own " + during + " (" + std::to_string(o.launches) +
                  " launch(es) seen" + (o.detail.empty() ? "" : ": " + o.detail) +
                  "): the work must be done by the candidate's kernels, not by a library or the "
                  "host" +
                  why);
    return false;
  }
  // Kernels the candidate's module does not define come from a library (or
  // from a graph, whose kernels CUPTI does not name): the work is not its own.
  uint32_t foreign = o.launches > o.own_launches ? o.launches - o.own_launches : 0;
  // KernelBench lets a ModelNew mix its kernels with PyTorch's.
  if (foreign > 0 && !s_.LibraryAllowed() && !s_.compat) {
    s_.Decide(VerdictStatus::kRejected,
              std::to_string(foreign) + " launch(es) of kernels the candidate does not define " +
                  during + " (" + std::to_string(o.own_launches) + " of its own" +
                  (o.detail.empty() ? "" : "; seen: " + o.detail) +
                  "): library kernels may not do the work unless the task allows rule 'library'");
    return false;
  }
  return true;
}

bool CandidateChecks::CheckOneStream(const CallOutcome& o, const std::string& during) {
  // A compat candidate may use side streams, as PyTorch code does, when it
  // joins their work back to the timed stream before it returns.
  if (s_.compat && o.aux > 0) {
    s_.Decide(VerdictStatus::kRejected,
              std::to_string(o.aux) +
                  " side stream(s) with work never joined back to the stream hone times " + during +
                  ": a non-blocking stream's work must be waited for (torch.cuda.current_stream()"
                  ".wait_stream(s), an event wait or a synchronisation) before forward returns, or "
                  "it escapes the timed region");
    return false;
  }
  if (o.side_launches > 0 && !s_.compat) {
    s_.Decide(VerdictStatus::kRejected, std::to_string(o.side_launches) +
                                            " kernel launch(es) on a stream other than "
                                            "args->stream " +
                                            during + ": all work must be on the stream hone times");
    return false;
  }
  if (o.side_copies > 0 && !s_.compat) {
    s_.Decide(VerdictStatus::kRejected,
              std::to_string(o.side_copies) +
                  " memory copy or memset call(s) on a stream other than args->stream " + during +
                  (o.first_side_copy.empty() ? "" : " (the first: " + o.first_side_copy + ")") +
                  ": copies must be queued on args->stream with the *Async calls, so they are "
                  "ordered with the kernels and timed with them");
    return false;
  }
  return true;
}

// An idle device synchronises in microseconds; work still running after the
// stream finished escaped the measurement. Two things make an honest call's
// sync slow now and then (seen on an H100, 1 in about 30 evaluations, 280 and
// 430 us): the sandbox's thread preempted during the sync (its wall time then
// includes time off the CPU, so its CPU time, spent spinning on the GPU, is
// the measure), and another process's context holding the GPU (a sandbox
// killed a moment before). Escaped work that pays happens on every call, so
// one slow sync is a note and the second one in an evaluation rejects.
bool CandidateChecks::CheckDeviceIdle(const CallOutcome& o, const std::string& during) {
  double limit = kEscapedWorkFloorSeconds + 0.05 * o.reported_seconds;
  double waited = o.device_sync_preempted
                      ? std::min(o.device_sync_seconds, o.device_sync_cpu_seconds)
                      : o.device_sync_seconds;
  if (waited <= limit) return true;
  std::string took =
      "a device-wide synchronisation took " + Seconds(o.device_sync_seconds) +
      (o.device_sync_preempted ? " (" + Seconds(o.device_sync_cpu_seconds) + " of it on the CPU)"
                               : std::string());
  // Beside another process a synchronisation may wait for its time slice.
  const DeviceSharing& sharing = sharing_.Evidence();
  const SharedAllowance more = WaitAllowance(sharing);
  switch (JudgeBesideNeighbours(waited, limit, more.within, more.busy, sharing.shared())) {
    case SharedJudgement::kWithin:
    case SharedJudgement::kWithinShared:
      return true;
    case SharedJudgement::kBusy:
      if (++slow_syncs_ < kSlowSyncsToReject) return true;
      DecideBusy("after args->stream finished " + during + ", " + took, sharing);
      return false;
    case SharedJudgement::kExceeded:
      if (sharing.shared()) took += "; " + sharing.Describe();
      break;
  }
  if (++slow_syncs_ < kSlowSyncsToReject) {
    s_.v.AddNote(notes::SlowSyncOnce(during, took));
    return true;
  }
  s_.Decide(VerdictStatus::kRejected,
            "work was still running on the GPU after args->stream finished " + during + " (" +
                took + "; slow sync " + std::to_string(slow_syncs_) + " of this evaluation" +
                "): it escaped the timed stream");
  return false;
}

bool CandidateChecks::CheckNoFallback(const std::string& during) {
  if (fallback_checked_ || s_.LibraryAllowed()) return true;
  fallback_checked_ = true;
  const std::vector<std::string> failures = ReadCompatEvents(s_.cand.sandbox->log()).failures;
  std::string built;  // what failed to build, as the runner said
  for (const std::string& f : failures)
    if (f.rfind("building extension", 0) == 0 || f.rfind("compiling kernel", 0) == 0)
      built += "; " + f;
  if (built.empty()) return true;
  s_.Decide(VerdictStatus::kRejected,
            "its own code failed to build, and its forward returned anyway " + during +
                ": the outputs came from a fallback (PyTorch or the host), not from the "
                "candidate's kernels" +
                built);
  return false;
}

void CandidateChecks::BeforeCall() {
  if (cpu_after_call_ == 0) return;
  uint64_t now = s_.cand.sandbox->CpuNanos();
  if (now > cpu_after_call_) idle_cpu_nanos_ += now - cpu_after_call_;
  cpu_after_call_ = 0;
}

void CandidateChecks::PauseIdleCount() {
  idle_paused_ = cpu_after_call_ != 0;
  BeforeCall();
}

void CandidateChecks::ResumeIdleCount() {
  if (idle_paused_) cpu_after_call_ = s_.cand.sandbox->SettledCpuNanos();
  idle_paused_ = false;
}

void CandidateChecks::AfterHostCall(const CallOutcome& o) {
  call_seconds_ += o.reported_seconds;
  cpu_after_call_ = s_.cand.sandbox->SettledCpuNanos();
}

bool CandidateChecks::CheckNoWorkAfterReturn() {
  // On CUDA the runtime's own threads may work between calls; escaped GPU
  // work is caught per call by the device-wide synchronisation instead.
  if (!s_.backend.traits().idle_cpu_check) return true;
  // One quiet pause at the end, so work left running has time to show.
  if (cpu_after_call_ != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  BeforeCall();
  double ms = static_cast<double>(idle_cpu_nanos_) * 1e-6;
  double limit_ms = std::max(kIdleCpuLimitMs, kIdleCpuShareOfCalls * call_seconds_ * 1e3);
  std::string detail;
  // A thread still runnable after the pause is working, whether or not a
  // loaded machine has given it much CPU yet.
  if (int runnable = s_.cand.sandbox->RunnableThreads(); runnable > 0) {
    detail = "work continued after hone_forward returned: " + std::to_string(runnable) +
             " thread(s) still running while the candidate was idle";
  } else if (ms <= limit_ms) {
    s_.v.checks.push_back({{CheckKind::kNoWorkAfterReturn},
                           "all calls",
                           true,
                           Num(ms) + " ms of CPU time used while the candidate was idle"});
    return true;
  } else {
    detail = "work continued after hone_forward returned: the sandbox used " + Num(ms) +
             " ms of CPU time between calls, over the " + Num(limit_ms) +
             " ms allowed (a thread left running?)";
  }
  s_.v.checks.push_back({{CheckKind::kNoWorkAfterReturn}, "all calls", false, detail});
  s_.Decide(VerdictStatus::kRejected, detail);
  return false;
}

// Both sides flush the same bytes (scaled for a line flush that also covers
// a workspace): a longer flush is call time moved.
bool FlushHidesWork(const ReportedTimeBounds& b) {
  // ref_prepare < 0: no reference side (a PyTorch task); the call-time check
  // then compares with a zero reference gap.
  const double limit = 1.5 * b.ref_prepare * b.flush_ratio + kUnreportedFloorSeconds;
  if (!(b.ref_prepare >= 0 && b.cand_prepare > limit)) return false;
  // On the CPU a flush that took longer because the sandbox waited for a
  // core (a loaded machine: 14.9 ms against the reference's 9.4 ms beside a
  // second test binary) used no more CPU time than the reference's; work
  // moved before the clock does.
  return !(b.cand_prepare_cpu && *b.cand_prepare_cpu <= limit);
}

bool CandidateChecks::CheckReportedFlush(const ReportedTimeBounds& b) {
  if (!FlushHidesWork(b)) return true;
  std::string detail = "the sandbox reported a cache flush of " + Seconds(b.cand_prepare) +
                       " per timed call where the reference's takes " + Seconds(b.ref_prepare);
  if (b.cand_prepare_cpu)
    detail += ", and used " + Seconds(*b.cand_prepare_cpu) +
              " of CPU time per call outside the reported call";
  s_.v.checks.push_back({{CheckKind::kReportedTime}, s_.v.timing.timed_case, false, detail});
  s_.Decide(VerdictStatus::kRejected,
            "timing does not add up: " + detail + ": time moved out of the measured span");
  return false;
}

// On the CPU, time hidden outside the measured span is work, and work costs
// the sandbox CPU time; on a machine with more runnable threads than cores
// the worker's clock also waits for a core, which costs none.
CallTimeJudgement JudgeCallTime(double extra, double allowed, std::optional<double> cpu_beyond) {
  if (extra <= allowed) return CallTimeJudgement::kWithin;
  if (cpu_beyond && *cpu_beyond <= allowed) return CallTimeJudgement::kWaitedForCore;
  return CallTimeJudgement::kUnaccounted;
}

bool CandidateChecks::CheckReportedTimes(const TimingResult& ref, const TimingResult& cand,
                                         const ReportedTimeBounds& b) {
  if (!CheckReportedFlush(b)) return false;
  // The worker's clock around a call sees the request, the cache flush, the
  // call and the reply; the sandbox reports the call and (on the CPU) the
  // flush. Both sides pay the same harness costs, so the candidate's
  // unreported time should match the reference's. Time it hides (work
  // outside the measured span, a patched timer) shows up as extra.
  double extra = cand.call_overhead - ref.call_overhead;
  // On CUDA each launch costs host time that the hold keeps out of the events.
  double allowed = kUnreportedFloorSeconds + kUnreportedShare * cand.summary.median +
                   kUnreportedPerLaunchSeconds * b.launches;
  // A compat candidate on the CPU has no reference side to compare with, and
  // the shim's Python around the forward (argument views, output checks)
  // costs it up to about 2 ms per call on a loaded 2-core machine.
  const bool held = s_.backend.traits().held_calls;
  if (s_.compat && !held) allowed += kCompatShimCpuSeconds;
  std::string detail =
      "the worker's clock saw " + Seconds(cand.call_overhead) +
      " per timed call beyond the reported time (the reference: " + Seconds(ref.call_overhead) +
      "; allowed extra " + Seconds(allowed) + ")";
  // Beside a neighbour a GPU's medians can lie a time slice apart either
  // way: the gaps' ranks decide (JudgeCallTimeBeside), even within.
  const bool ranks_decide = held && sharing_.shared();
  switch (JudgeCallTime(extra, allowed, b.cand_cpu_beyond)) {
    case CallTimeJudgement::kWithin:
      if (ranks_decide) break;
      return RecordCallTime(true, detail, cand.summary.median);
    case CallTimeJudgement::kWaitedForCore:
      return RecordCallTime(true,
                            detail + "; the machine was busy: " +
                                CpuBeyondWords(*b.cand_cpu_beyond) + ", so the rest was waiting",
                            cand.summary.median);
    case CallTimeJudgement::kUnaccounted:
      if (b.cand_cpu_beyond) detail += "; " + CpuBeyondWords(*b.cand_cpu_beyond);
      break;
  }
  if (s_.compat && held && b.launches > 0) {
    deferred_call_time_ = {extra,
                           allowed,
                           b.launches,
                           cand.summary.median,
                           "the worker's clock saw " + Seconds(cand.call_overhead) +
                               " per timed call beyond the reported time, over " + Num(b.launches) +
                               " launches",
                           b.cand_gaps};
    return true;
  }
  // The CPU's own contention is told apart by CPU time above.
  if (!held) return RecordCallTime(false, detail, cand.summary.median);
  // A native task's reference was timed beside the candidate, interleaved:
  // its gap met the same neighbour, and `extra` is over it.
  return JudgeCallTimeBeside(extra, allowed, detail, cand.summary.median, b.cand_gaps, b.ref_gaps);
}

// Beside another process each held call may wait for its time slice before
// its hold is released, or its flush may share the bandwidth: the
// reference's calls, timed interleaved, and hone's own probe calls waited
// the same.
bool CandidateChecks::JudgeCallTimeBeside(double extra, double allowed, const std::string& detail,
                                          double reported_median,
                                          const std::vector<double>& cand_gaps,
                                          const std::vector<double>& ref_gaps) {
  // A median within the allowance decides alone; beside a neighbour two
  // medians can lie a time slice apart either way, so the ranks decide.
  if (extra <= allowed && !sharing_.shared()) return RecordCallTime(true, detail, reported_median);
  // Against the probes, as many of them as the candidate made calls.
  const int probes = ref_gaps.empty() ? std::clamp(static_cast<int>(cand_gaps.size()),
                                                   SharingWatch::kMinProbes, kSharedMinCalls)
                                      : SharingWatch::kMinProbes;
  const DeviceSharing& sharing = sharing_.Evidence(probes);
  if (!sharing.shared()) return RecordCallTime(extra <= allowed, detail, reported_median);
  // Every timed call records its gap, and a timing has at least one.
  HONE_CHECK(!cand_gaps.empty(), "a timing check beside a neighbour without the calls' gaps");
  return JudgeGapsBeside(extra, allowed, detail, reported_median, cand_gaps, ref_gaps, sharing);
}

bool CandidateChecks::JudgeGapsBeside(double extra, double allowed, const std::string& detail,
                                      double reported_median, const std::vector<double>& cand_gaps,
                                      const std::vector<double>& ref_gaps,
                                      const DeviceSharing& sharing) {
  const bool with_reference = !ref_gaps.empty();
  const std::vector<double> base_gaps = with_reference ? ref_gaps : ProbeWaitsAboveLeast(sharing);
  const GapShift shift = CompareGaps(cand_gaps, base_gaps);
  s_.v.AddNote(notes::GapsBesideNeighbours(
      DescribeGapRanks(cand_gaps, base_gaps,
                       with_reference ? "the reference's, timed interleaved"
                                      : "hone's probe calls' waits above the least of them")));
  const std::string base = with_reference ? "the reference's, timed interleaved with it"
                                          : "the waits of hone's own probe calls, made beside it";
  const std::string ranks = "rank by rank over " + Num(static_cast<double>(cand_gaps.size())) +
                            " calls, its time beyond the reports lay ";
  switch (hone::JudgeGapsBeside(shift, allowed, extra, with_reference)) {
    case SharedJudgement::kWithin:
      return RecordCallTime(true, detail + "; " + sharing.Describe(), reported_median);
    case SharedJudgement::kWithinShared:
      return RecordCallTime(true,
                            detail + "; " + sharing.Describe() + "; " + ranks +
                                Seconds(shift.pass) + " at most beyond " + base +
                                ", within the allowance",
                            reported_median);
    case SharedJudgement::kBusy:
      s_.v.checks.push_back({{CheckKind::kReportedTime}, s_.v.timing.timed_case, false, detail});
      DecideBusy("the timing check: " + detail + "; " + ranks + "up to " + Seconds(shift.pass) +
                     " beyond " + base,
                 sharing);
      return false;
    case SharedJudgement::kExceeded:
      break;
  }
  // Only against a reference's gaps are the top ranks judged (JudgeGapsBeside).
  const bool shifted = shift.reject > allowed && shift.least_apart > allowed;
  const std::string how =
      shifted ? ranks + "at least " + Seconds(shift.reject) + " beyond " + base
              : "beyond the reports, its " + Num(static_cast<double>(shift.top_rank)) +
                    " slowest of " + Num(static_cast<double>(cand_gaps.size())) + " calls lay " +
                    Seconds(shift.top_over) +
                    " or more above all but the slowest of the reference's calls, timed "
                    "interleaved with it; waiting for the neighbour's time slice is never that "
                    "long";
  return RecordCallTime(
      false, detail + "; beside another process too: " + how + " (" + sharing.Describe() + ")",
      reported_median);
}

void CandidateChecks::DecideBusy(const std::string& what, const DeviceSharing& sharing) {
  s_.Decide(VerdictStatus::kBusy,
            "not decided: " + sharing.Describe() + "; " + what +
                ", which hidden work and waiting for the GPU beside that process would both "
                "explain. Evaluate it again when the GPU is quieter (a busy verdict is never a "
                "reward)");
}

bool CandidateChecks::RecordCallTime(bool ok, const std::string& detail, double reported_median) {
  s_.v.checks.push_back({{CheckKind::kReportedTime}, s_.v.timing.timed_case, ok, detail});
  if (!ok)
    s_.Decide(VerdictStatus::kRejected,
              "timing does not add up: " + detail + " for a reported median of " +
                  Seconds(reported_median) +
                  ": work done outside the measured span, or a tampered timer");
  return ok;
}

void CandidateChecks::CheckDeferredCallTime(const BaselineTiming* eager) {
  if (!deferred_call_time_) return;
  const DeferredCallTime& d = *deferred_call_time_;
  double per_launch = eager ? eager->host_seconds_per_launch : 0;
  // At most as many launches as the Model makes get its rate: launches added
  // beyond those (empty ones, say) cannot buy hidden host time.
  double at_eager_rate = eager ? std::min(d.launches, eager->launches_per_call) : 0;
  double allowed = d.allowed + at_eager_rate * (kEagerLaunchMargin *
                                                    std::max(per_launch, kEagerLaunchFloorSeconds) -
                                                kUnreportedPerLaunchSeconds);
  std::string why;
  if (eager && per_launch > 0) {
    why = " (the eager Model's host time per launch here is " + Seconds(per_launch) + ")";
  } else if (eager && !eager->held) {
    // The Model's hold ran out, so its whole forward, host dispatch included,
    // was timed: the most its dispatch can cost.
    allowed += kEagerLaunchMargin * eager->median;
    why = " (the eager Model was timed unheld, host dispatch included, at " +
          Seconds(eager->median) + ")";
  } else {
    why =
        " (no eager baseline measured PyTorch's host time per launch here: time one, "
        "without --baselines none)";
  }
  JudgeCallTimeBeside(d.extra, allowed, d.detail + "; allowed " + Seconds(allowed) + why, d.median,
                      d.gaps, {});
}

}  // namespace hone
