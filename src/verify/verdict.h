// The result of evaluating one candidate on one task: a status, a reason a
// person or an LLM can act on, every check that ran, and the measurements.
// A plain value: copyable and comparable, no behaviour beyond naming.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend_names.h"
#include "measure/device_state.h"
#include "measure/machine.h"
#include "measure/profile.h"
#include "measure/stats.h"
#include "verify/check.h"
#include "verify/note.h"

namespace hone {

enum class VerdictStatus {
  kPassed,
  kIncorrect,
  kCompileError,
  kRuntimeError,
  kTimeout,
  kRejected,
  // Not decided: a check that needs the device alone met another process on
  // it (measure/device_sharing.h). Retryable, never a verdict on the
  // candidate: bench counts it as not decided, optimize evaluates again, the
  // service hands the job back, and no reward is computed from it.
  kBusy,
};

std::string_view StatusName(VerdictStatus s);

// Whether a status decides anything about the candidate (all but kBusy);
// also of a status as stored and exported, by its name.
inline bool Decides(VerdictStatus s) { return s != VerdictStatus::kBusy; }
inline bool Decides(std::string_view status_name) {
  return status_name != StatusName(VerdictStatus::kBusy);
}

struct TimingResult {
  SampleSummary summary;        // seconds, as reported by the sandbox
  std::vector<double> samples;  // raw, seconds
  double call_overhead = 0;     // median of (worker's clock - kernel time) per call, seconds
  bool operator==(const TimingResult&) const = default;
};

// A verdict is a core (who, what status, why, every check) plus sections
// that mirror the objects of its JSON (verify/verdict_json.h): "build",
// "timing", "precision", "sandbox", "tuning", "sanitizer", "profile",
// "guard", "machine". Each section's fields and their JSON keys are listed
// once, in verdict_json.cc's schema, which both writes and reads them.
struct Verdict {
  VerdictStatus status = VerdictStatus::kPassed;
  std::string reason;
  std::string task;
  std::string candidate;
  std::string backend = kHostBackend;
  // The candidate's language (lang/language.h: "cpp", "cuda", "load_inline",
  // "triton"); empty in verdicts stored before languages had names.
  std::string language;

  std::vector<Check> checks;
  std::vector<Note> notes;
  // Its words come from verify/note_words.h, where every note is worded.
  void AddNote(Note note) { notes.push_back(std::move(note)); }

  std::string shapes;            // PyTorch tasks: the sizes the problem ran with
  std::string kernels_launched;  // CUDA: names seen in the first verification call

  double total_seconds = 0;
  std::vector<std::pair<std::string, double>> stage_seconds;  // build, start, verify, time
  double kernel_seconds = 0;  // time inside hone_forward, both sides, all calls
  MachineInfo machine;

  struct Build {
    bool cached = false;
    double seconds = 0;
    std::string log;
    std::string resources;  // CUDA: registers, shared memory, spills per kernel
    bool operator==(const Build&) const = default;
  } build;

  // The timed case's measurements; JSON's "timing", written only when
  // candidate_time is set.
  struct Timing {
    std::string timed_case;
    std::optional<TimingResult> candidate_time, reference_time;
    // What reference_time measured: "reference" (a native task's reference,
    // interleaved with the candidate) or "torch eager" (a PyTorch task's
    // model, timed by the oracle on the same device under the same protocol).
    std::string baseline = "reference";
    double speedup = 0;  // reference_time median / candidate_time median
    // Host-bound calls of a PyTorch task timed beside the eager Model
    // (run/evaluator.cc): per interleaved repetition, the Model's sample over
    // the candidate's. When set, speedup is their median, which cancels drift
    // that the two calls of a repetition share (measure/timer.h).
    std::vector<double> speedup_pairs;
    // Its 95% interval, and why it is not resolved (measure/speedup.h): empty
    // when the interval excludes 1 and both sides met the precision target.
    double speedup_low = 0, speedup_high = 0;
    std::string speedup_unresolved;
    // PyTorch tasks: torch.compile of the model, timed like the eager baseline.
    std::optional<TimingResult> compile_time;
    double speedup_compile = 0;
    std::string compile_unavailable;  // why there is no compile_time
    double sol_seconds = 0;
    double sol_percent = 0;
    double call_overhead_seconds = 0;  // per timed call: the worker's clock around the request
                                       // minus the kernel's time (IPC, the in-sandbox cache
                                       // flush, the sandbox's timer)
    std::string flush_mode;
    // Its backend times calls with a pair of device events (CUDA), whose
    // back-to-back overhead is recorded (BackendTraits::event_timing); the
    // JSON holds event_overhead_us exactly then, and says so when read back.
    bool event_timed = false;
    double event_overhead_seconds = 0;               // a back-to-back event pair
    std::optional<DeviceStateSummary> device_state;  // CUDA: NVML over the timed calls
    // Other processes on the device while the candidate was checked and
    // timed (measure/device_sharing.h); 0: hone's alone, or not known.
    int shared_with = 0;
    bool operator==(const Timing&) const = default;
  } timing;

  struct Precision {
    double error = 0;  // worst relative L2 error vs float64 seen
    double bound = 0;
    // The worst element errors against the reference over every output
    // compared (finite elements; |out - ref| and that over |ref|): what
    // FlashInfer-Trace's traces report as correctness.
    double max_abs_error = 0, max_rel_error = 0;
    bool operator==(const Precision&) const = default;
  } precision;

  // Declared tunables (tune/tunables.h): the parameters of the variant this
  // verdict is for (the fastest that passed), and every variant tried.
  struct TuneTrial {
    std::string params;  // "BLOCK=128 UNROLL=4"
    VerdictStatus status = VerdictStatus::kPassed;
    double median_seconds = 0;  // 0 unless it passed
    std::string reason;
    bool operator==(const TuneTrial&) const = default;
  };
  struct Tuning {
    std::string params;
    std::vector<TuneTrial> trials;
    bool operator==(const Tuning&) const = default;
  } tuning;

  struct Sandbox {
    uint64_t features = 0;
    std::string missing;
    // A compat candidate's sandbox came warm: Python and torch were imported
    // before the evaluation (process/warm_pool.h), so its start stage was short.
    bool warm = false;
    // A compat candidate's load as its runner reported it (python/
    // hone_compat.py, untrusted words): the seconds the module took to load
    // in all, and of those its first call, made while it loaded (Triton's JIT
    // compiles and autotuning, lazy extension builds, torch.compile), which
    // is never one of the timed calls. 0: not reported.
    double load_seconds = 0;
    double first_call_seconds = 0;
    std::string output_head;  // what the candidate printed (first bytes)
    uint64_t output_bytes = 0;
    bool operator==(const Sandbox&) const = default;
  } sandbox;

  // compute-sanitizer on the smallest case (tools/sanitize.h), when asked for.
  struct SanitizerTool {
    std::string tool;     // memcheck, racecheck, initcheck
    int errors = 0;       // what it reported
    std::string first;    // its first report, two lines at most
    std::string failure;  // why it did not run to the end, or empty
    double seconds = 0;
    bool operator==(const SanitizerTool&) const = default;
  };
  struct Sanitizer {
    std::string case_label;
    std::vector<SanitizerTool> tools;
    std::string not_run;  // why nothing ran (a CPU or compat candidate, no tool)
    double seconds = 0;
    int errors() const {
      int n = 0;
      for (const auto& t : tools) n += t.errors;
      return n;
    }
    bool operator==(const Sanitizer&) const = default;
  };
  std::optional<Sanitizer> sanitizer;

  // Profiler counters on the timed case and their diagnosis
  // (run/profile_stage.h), when asked for.
  std::optional<ProfileReport> profile;

  // The stray-write watch (process/stray_writes.h): the candidate calls it
  // covered, the time its fingerprints took, the most bytes one looked at.
  struct GuardCost {
    int calls = 0;
    double seconds = 0;
    uint64_t bytes = 0;
    bool operator==(const GuardCost&) const = default;
  } guard;

  int checks_failed() const;
  bool operator==(const Verdict&) const = default;
};

}  // namespace hone
