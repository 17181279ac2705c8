// The words of every note a verdict carries (verify/note.h), one function per
// note: a stage says which note it gives and with what values (counts,
// seconds, bytes, names, a reason worded elsewhere), and the kind and the
// sentence come from here. Users, tests and the model's feedback read these
// sentences back, so a change to one is a change to what hone says; having
// them in one place keeps that change deliberate (tests/unit/
// note_words_test.cc pins some). A note read back by code (the baselines an
// early evaluation did not cache) is read here too, by the function that
// wrote it, never by matching its words elsewhere.
//
// verify/ sits below the stages that give notes, so the parameters are plain
// values: what a stage knows of devices, sandboxes or timers arrives as
// numbers or as words those places wrote. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verify/note.h"

namespace hone::notes {

// kInput: the candidate hone evaluated was a file it wrote from the user's.
Note EvaluatedAs(const std::string& written_file);

// kLint
Note LintWarning(const std::string& finding);
Note StaticLintSkipped();

// kBuild: what a ModelNew file built or loaded. `source` is the runner's
// word for where an extension came from ("built by hone", "loaded").
Note ExtensionLoaded(const std::string& name, const std::string& source);
// A load_inline or load call hone could not build ahead: `scope` is "module"
// (built at import) or the qualname that makes the call.
Note BuildsInSandbox(const std::string& call, const std::string& name, int line,
                     const std::string& scope, const std::string& unresolved_reason);
// A JIT kernel the first call compiled, as the compat runner reported it.
struct JitKernel {
  std::string name;
  int compiled = 0;
  int stored = 0;              // of those compiled, loaded from an earlier evaluation
  std::optional<int> configs;  // autotuned over this many
  std::optional<double> tuning_seconds;
  std::optional<std::string> best;  // the config it chose, capped by the caller
};
// Nullopt for no kernels.
std::optional<Note> JitKernelsCompiled(const std::vector<JitKernel>& kernels);

// kSandbox
Note WarmSandboxesOff(const std::string& reason);

// kMemory. `cap` is --memory-cap's bytes; MemoryCapWords is what the plan's
// notes and its "does not fit" error say of it ("" without a cap).
std::string MemoryCapWords(int64_t cap);
Note MemoryPlanUnderCap(int64_t peak, int64_t free, int64_t cap);
Note MemoryPlanShrunk(const std::vector<std::string>& shrunk, int64_t peak, int64_t free);
Note Float64DoesNotFit();

// kPrecision
Note Float64NotRun(const std::string& why);
Note Float64Cut(int sets, double slow_seconds, double limit_seconds);
Note Float64ReferenceReturned(int rc);
Note Float64Budget(int64_t taken, int64_t sets, const std::string& case_label,
                   int64_t elements_per_set, int64_t elements_per_distribution);

// kTiming. HeldCallsWords also words a baseline's timer (EagerBaselineTimedBy):
// "" when every call was held; `hold_ran_out_in_call` < 0 when it never ran out.
std::string HeldCallsWords(const std::string& who, int held, int calls, int hold_ran_out_in_call);
Note HeldCalls(const std::string& who, int held, int calls, int hold_ran_out_in_call);
Note TimingStopped(const std::string& stop, size_t repetitions, bool interleaved, int warmup_calls);
Note NotTimedEveryCallRechecked();
Note SideStreamsTimedUnheld();
Note FasterThanLight(double sol_percent);
Note TimedInProcesses(std::string processes, int loaded_while_checked);
Note TimedInOneProcess(size_t processes_wanted, const std::string& neighbours);
Note CallingThreadsNotPinned(const std::string& why);
Note CallingThreadsPinned(int cpu);
Note CallingThreadStrayed(bool the_model, int cpu);
Note PostMarkOnce(const std::string& during, const std::string& took);
Note SlowSyncOnce(const std::string& during, const std::string& took);

// kSharedDevice
Note SharedWhileTimed(const std::string& neighbours);
Note PostMarkWithinShared(const std::string& took, const std::string& during,
                          const std::string& sharing, double allowed_seconds);
Note GapsBesideNeighbours(const std::string& ranks);
Note EvaluationNotDecided(size_t evaluation, size_t evaluations, const std::string& why);
Note BenchLanesShareDevice(const std::string& device, long other_lanes);

// kBaseline
Note ModelTimedApart(const std::string& failure_beside);
Note EagerBaselineTimedBy(const std::string& timer);
Note NoEagerBaseline(const std::string& reason);
// How the baselines were timed: `from_cache` both read from the cache,
// `eager_again` the eager one timed again now, `pairs` the interleaved
// repetitions beside the candidate (0: timed apart).
Note BaselinesTimed(bool from_cache, bool eager_again, size_t pairs, const std::string& device,
                    const std::string& torch_version);
// The baselines an evaluation timed stayed out of the cache: for a reason of
// the cache's, or because they were host-bound beside a candidate's build.
Note BaselinesNotCached(const std::string& reason);
Note BaselinesNotCachedBesideABuild();
// The reason a BaselinesNotCached* note gives; nullopt for any other note.
std::optional<std::string> BaselinesNotCachedReason(const Note& note);
// The baselines of an early evaluation, timed while the candidate's
// extensions compiled; `not_cached` the reason that evaluation's note gave
// (BaselinesNotCachedReason), nullopt or "" when they were cached.
Note BaselinesBesideBuild(double seconds, const std::optional<std::string>& not_cached);

// kSanitizer
Note SanitizerFound(const std::string& tool, int errors, const std::string& first);
Note SanitizerCompatMemcheck(const std::vector<std::string>& kernels);

// kParts: `speedups` is each part's, worded by the caller.
Note PartsBeforePassed(const std::string& speedups);
Note PartsMean(size_t parts, const std::string& speedups);

}  // namespace hone::notes
