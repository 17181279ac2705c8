#include "verify/note_words.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/wording.h"

namespace hone::notes {
namespace {

// The opening every BaselinesNotCached* note shares: BaselinesNotCachedReason
// reads the reason after it.
constexpr std::string_view kBaselinesNotCached = "the baselines were not cached: ";
// The reason BaselinesNotCachedBesideABuild gives, which BaselinesBesideBuild
// words for the candidate's verdict.
constexpr std::string_view kHostBoundBesideABuild =
    "their calls are host-bound, and a candidate's compile ran beside them";

}  // namespace

Note EvaluatedAs(const std::string& written_file) {
  return {NoteKind::kInput, "evaluated as " + written_file + ", the file hone wrote for it"};
}

Note LintWarning(const std::string& finding) {
  return {NoteKind::kLint, "lint warning: " + finding};
}

Note StaticLintSkipped() {
  return {NoteKind::kLint, "static lint skipped: only the run-time checks apply"};
}

Note ExtensionLoaded(const std::string& name, const std::string& source) {
  return {NoteKind::kBuild, "extension '" + name + "': " + source};
}

Note BuildsInSandbox(const std::string& call, const std::string& name, int line,
                     const std::string& scope, const std::string& unresolved_reason) {
  const std::string where = scope == "module" ? "at import" : "in " + scope;
  return {NoteKind::kBuild,
          call + "('" + (name.empty() ? "?" : name) + "') at line " + std::to_string(line) +
              " builds inside the sandbox " + where +
              " (hone could not read its arguments before it runs: " + unresolved_reason + ")"};
}

std::optional<Note> JitKernelsCompiled(const std::vector<JitKernel>& kernels) {
  std::string out;
  for (const JitKernel& k : kernels) {
    std::string one = k.name;
    if (k.compiled > 0) {
      one += fmt::format(" ({} compiled", k.compiled);
      if (int stored = std::min(k.stored, k.compiled); stored > 0)
        one += fmt::format(", {} of them loaded from an earlier evaluation of this file", stored);
      one += ")";
    }
    if (k.configs) {
      one += fmt::format(" autotuned over {} configs", *k.configs);
      if (k.tuning_seconds) one += fmt::format(" in {:.2f} s", *k.tuning_seconds);
      if (k.best) one += " (chose " + *k.best + ")";
    }
    out += (out.empty() ? "" : "; ") + one;
  }
  if (out.empty()) return std::nullopt;
  return Note{NoteKind::kBuild, "kernels compiled by its first call: " + out};
}

Note WarmSandboxesOff(const std::string& reason) {
  return {NoteKind::kSandbox, "warm sandboxes are off: " + reason};
}

std::string MemoryCapWords(int64_t cap) {
  return cap > 0 ? " (capped at " + Gigabytes(cap) + " by --memory-cap or HONE_MEMORY_CAP)" : "";
}

Note MemoryPlanUnderCap(int64_t peak, int64_t free, int64_t cap) {
  return {NoteKind::kMemory,
          "memory plan: peak " + Gigabytes(peak) + " of " + Gigabytes(free) + MemoryCapWords(cap)};
}

Note MemoryPlanShrunk(const std::vector<std::string>& shrunk, int64_t peak, int64_t free) {
  std::string what;
  for (const auto& w : shrunk) what += (what.empty() ? "" : "; ") + w;
  return {NoteKind::kMemory, "memory plan: " + what + " (peak " + Gigabytes(peak) + " of " +
                                 Gigabytes(free) + " free)"};
}

Note Float64DoesNotFit() {
  return {NoteKind::kMemory,
          "precision check skipped: the float64 reference does not fit in memory beside the rest"};
}

Note Float64NotRun(const std::string& why) {
  return {NoteKind::kPrecision,
          "precision check skipped: the model did not run in float64 (" + why + ")"};
}

Note Float64Cut(int sets, double slow_seconds, double limit_seconds) {
  return {NoteKind::kPrecision,
          "precision check (float64) on the first " + std::to_string(sets) +
              " value set(s) only: the float64 forward took " + Seconds(slow_seconds) + " (over " +
              Seconds(limit_seconds) +
              "); the later sets are checked against the task's own reference alone"};
}

Note Float64ReferenceReturned(int rc) {
  return {NoteKind::kPrecision, "precision check skipped: the reference returned " +
                                    std::to_string(rc) + " for float64 inputs"};
}

Note Float64Budget(int64_t taken, int64_t sets, const std::string& case_label,
                   int64_t elements_per_set, int64_t elements_per_distribution) {
  return {NoteKind::kPrecision, "precision check (float64) on " + std::to_string(taken) + " of " +
                                    std::to_string(sets) + " value sets of " + case_label +
                                    ": each holds " + std::to_string(elements_per_set) +
                                    " output elements, and every value distribution got the " +
                                    std::to_string(elements_per_distribution) +
                                    " the check needs from its first seed(s)"};
}

std::string HeldCallsWords(const std::string& who, int held, int calls, int hold_ran_out_in_call) {
  if (held == calls) return "";
  std::string s =
      who + ": " + std::to_string(held) + " of " + std::to_string(calls) + " timing calls held";
  if (hold_ran_out_in_call >= 0)
    s += "; the hold ran out in call " + std::to_string(hold_ran_out_in_call) +
         " (its forward waited on the GPU: a synchronisation, or more launches than the "
         "stream's queue holds), so later calls include host launch time";
  return s;
}

Note HeldCalls(const std::string& who, int held, int calls, int hold_ran_out_in_call) {
  return {NoteKind::kTiming, HeldCallsWords(who, held, calls, hold_ran_out_in_call)};
}

Note TimingStopped(const std::string& stop, size_t repetitions, bool interleaved,
                   int warmup_calls) {
  return {NoteKind::kTiming, "timing stopped: " + stop + " after " + std::to_string(repetitions) +
                                 (interleaved ? " interleaved repetitions" : " repetitions") +
                                 " and " + std::to_string(warmup_calls) + " warm-up calls"};
}

Note NotTimedEveryCallRechecked() {
  return {NoteKind::kTiming, "not timed: every timed call was a re-check (raise --max-reps)"};
}

Note SideStreamsTimedUnheld() {
  return {NoteKind::kTiming,
          "the candidate uses side streams: its calls are timed without the "
          "hold (host launch time included), like unheld PyTorch code"};
}

Note FasterThanLight(double sol_percent) {
  return {NoteKind::kTiming, "suspect: faster than speed of light (" + Num(sol_percent) +
                                 "%): the task's cost formulas or the machine's measured "
                                 "ceilings may be wrong, or the kernel skips work"};
}

Note TimedInProcesses(std::string processes, int loaded_while_checked) {
  if (loaded_while_checked > 0)
    processes +=
        "; " + std::to_string(loaded_while_checked) + " of them loaded while it was checked";
  return {NoteKind::kTiming, std::move(processes)};
}

Note TimedInOneProcess(size_t processes_wanted, const std::string& neighbours) {
  return {NoteKind::kTiming, "timed in one process, not " + std::to_string(processes_wanted) +
                                 ": another did not load within the start timeout (" + neighbours +
                                 ")"};
}

Note CallingThreadsNotPinned(const std::string& why) {
  return {NoteKind::kTiming,
          "the calling threads timed beside each other were not pinned to one CPU: " + why};
}

Note CallingThreadsPinned(int cpu) {
  return {NoteKind::kTiming,
          "the candidate's and the eager Model's calling threads shared CPU " +
              std::to_string(cpu) +
              " while timed beside each other (a host-bound call's time follows the CPU it runs "
              "on)"};
}

Note CallingThreadStrayed(bool the_model, int cpu) {
  return {NoteKind::kTiming, std::string(the_model ? "the eager Model" : "the candidate") +
                                 " moved its calling thread off CPU " + std::to_string(cpu) +
                                 " while timed beside the other side (it changed its own CPUs)"};
}

Note PostMarkOnce(const std::string& during, const std::string& took) {
  return {NoteKind::kTiming, "once " + during + ", " + took + "; a second time would reject it"};
}

Note SlowSyncOnce(const std::string& during, const std::string& took) {
  return {NoteKind::kTiming, "once " + during + ", " + took +
                                 " after args->stream finished; an idle device takes "
                                 "microseconds (a second time would reject the candidate)"};
}

Note SharedWhileTimed(const std::string& neighbours) {
  return {NoteKind::kSharedDevice,
          neighbours +
              " while the candidate was timed: its time may be longer than alone, and the timing "
              "checks judged it beside that"};
}

Note PostMarkWithinShared(const std::string& took, const std::string& during,
                          const std::string& sharing, double allowed_seconds) {
  return {NoteKind::kSharedDevice,
          took + " " + during + "; " + sharing + ", which allows " + Seconds(allowed_seconds)};
}

Note GapsBesideNeighbours(const std::string& ranks) {
  return {NoteKind::kSharedDevice, "beside another process, " + ranks};
}

Note EvaluationNotDecided(size_t evaluation, size_t evaluations, const std::string& why) {
  return {NoteKind::kSharedDevice,
          fmt::format("evaluation {} of {} was not decided: {}", evaluation, evaluations, why)};
}

Note BenchLanesShareDevice(const std::string& device, long other_lanes) {
  return {NoteKind::kSharedDevice,
          fmt::format("timed on {} with {} other evaluation lane(s) of this bench on the same "
                      "device: their evaluations overlap and interfere, so these times are less "
                      "precise than one lane's",
                      device, other_lanes)};
}

Note ModelTimedApart(const std::string& failure_beside) {
  return {NoteKind::kBaseline, failure_beside + "; it is timed apart"};
}

Note EagerBaselineTimedBy(const std::string& timer) {
  return {NoteKind::kBaseline, "eager baseline timed by " + timer};
}

Note NoEagerBaseline(const std::string& reason) {
  return {NoteKind::kBaseline, "no eager baseline: " + reason};
}

Note BaselinesTimed(bool from_cache, bool eager_again, size_t pairs, const std::string& device,
                    const std::string& torch_version) {
  // One account of when each baseline was timed: an eager Model timed
  // beside the candidate (interleaved pairs) was not timed "after" it.
  const bool beside = pairs > 0;
  const bool cached = from_cache || eager_again;
  const char* when = cached && beside ? "read from the cache, the eager one timed again now beside "
                                        "the candidate, interleaved,"
                     : cached && !from_cache ? "read from the cache, the eager one timed again now"
                     : cached                ? "read from the cache"
                     : beside ? "timed now, the eager one beside the candidate, interleaved,"
                              : "timed now, after the candidate,";
  return {NoteKind::kBaseline,
          std::string("baselines ") + when + " on " + device + " with torch " + torch_version +
              " (the task's Model in a sandbox, timed like candidates; speedup = " +
              (beside ? "the median over interleaved repetitions of eager / candidate, " +
                            std::to_string(pairs) + " pairs)"
                      : std::string("baseline median / candidate median)"))};
}

Note BaselinesNotCached(const std::string& reason) {
  return {NoteKind::kBaseline, std::string(kBaselinesNotCached) + reason};
}

Note BaselinesNotCachedBesideABuild() {
  return BaselinesNotCached(std::string(kHostBoundBesideABuild));
}

std::optional<std::string> BaselinesNotCachedReason(const Note& note) {
  if (note.kind != NoteKind::kBaseline || !note.text.starts_with(kBaselinesNotCached))
    return std::nullopt;
  return note.text.substr(kBaselinesNotCached.size());
}

Note BaselinesBesideBuild(double seconds, const std::optional<std::string>& not_cached) {
  const std::string not_kept = !not_cached ? ""
                               : *not_cached == kHostBoundBesideABuild
                                   ? "their calls are host-bound, so they were timed "
                                     "again after the candidate"
                                   : *not_cached;
  return {NoteKind::kBaseline,
          fmt::format("the problem's baselines were timed while the candidate's extensions "
                      "compiled ({:.1f} s), {}",
                      seconds, not_kept.empty() ? "and cached" : "and not kept: " + not_kept)};
}

Note SanitizerFound(const std::string& tool, int errors, const std::string& first) {
  return {NoteKind::kSanitizer, "compute-sanitizer " + tool + " found " + std::to_string(errors) +
                                    (errors == 1 ? " error" : " errors") +
                                    (first.empty() ? "" : ": " + first)};
}

Note SanitizerCompatMemcheck(const std::vector<std::string>& kernels) {
  return {NoteKind::kSanitizer,
          "compute-sanitizer: memcheck only, over the ModelNew file's call with torch's caching "
          "allocator off (PYTORCH_NO_CUDA_MEMORY_CACHING=1): every tensor its own allocation, " +
              std::string(kernels.size() == 1 ? "kernel " : "kernels ") + AllOf(kernels) + " only"};
}

Note PartsBeforePassed(const std::string& speedups) {
  return {NoteKind::kParts, fmt::format("the parts before it passed ({})", speedups)};
}

Note PartsMean(size_t parts, const std::string& speedups) {
  return {
      NoteKind::kParts,
      fmt::format(
          "speedup: the geometric mean over {} parts ({}); the timing shown is the first part's",
          parts, speedups)};
}

}  // namespace hone::notes
