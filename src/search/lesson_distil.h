// Lessons from a finished optimize run, distilled from what the run store
// holds, without asking a model: which change, on which kind of task
// (search/task_signature.h), gained how much speedup and how much of the
// speed of light (SOL %).
//
// Two kinds, at most kMaxLessonsPerRun a run:
//   - basis "reference": the run's best passed attempt against the task's
//     reference (speedup 1 -> S), when the verdict says the speedup is
//     resolved (measure/speedup.h) and the low end of its 95% interval (S
//     itself when there is none) is at least kMinLessonGain;
//   - basis "parent": a passed attempt against the fastest passed attempt it
//     was written from (refine's previous turn, evolve's parents), when it is
//     at least kMinLessonGain times faster and the two candidates' median
//     intervals do not overlap; the largest gains first, at most
//     kMaxStepLessons.
// A lesson's `change` says what changed, in that order: the techniques added
// and dropped and the lines changed (search/source_change.h) against the
// parent's source or the reference's, the tuned parameters, and what the
// model said it did (the reply's prose, search/extract.h). Its `evidence`
// keeps the seqs, evaluation ids, medians and timed case the numbers come
// from.
//
// DistilLessons is pure; RecordRunLessons reads the run from the store and
// writes the lessons back (idempotent: a run distilled twice keeps one copy
// of each lesson). Thread-compatible; the Store serialises itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "search/task_signature.h"
#include "store/records.h"
#include "store/store.h"
#include "task/task.h"

namespace hone {

inline constexpr double kMinLessonGain = 1.10;
inline constexpr int kMaxStepLessons = 2;
inline constexpr int kMaxLessonsPerRun = 3;

// A passed, timed attempt as distillation needs it.
struct AttemptFacts {
  int64_t candidate_id = 0, evaluation_id = 0;
  int seq = 0;
  std::vector<int> parents;  // seqs
  std::string kind;          // the strategy's: sample, refine, mutate, crossover
  std::string source, reply;
  double speedup = 0;                 // over the reference
  std::optional<double> sol_percent;  // none when the task has no cost
  bool resolved = false;              // the speedup's interval excludes 1
  std::optional<double> speedup_low;  // the low end of that interval
  std::optional<double> median_us, ci_low_us, ci_high_us, ref_median_us;
  std::string tuned_params;  // "BLOCK=128"; "" when it declared none
  std::string timed_case;
  // The profiler's diagnosis (measure/profile_judge.h); "" when not profiled.
  std::string profile_label;
};

// The facts of a stored attempt; none unless its latest evaluation finished
// passed, with a speedup, and it has a source.
std::optional<AttemptFacts> FactsOf(const CandidateWithEvaluation& row);

// What the run optimised.
struct LessonSubject {
  int64_t run_id = 0;
  std::string task_hash;
  TaskSignature signature;
  std::string reference_source;  // "" when there is none (task/reference_kind.h)
};

std::vector<LessonRow> DistilLessons(const LessonSubject& subject,
                                     const std::vector<AttemptFacts>& attempts);

// Distils run `run_id` of `task` on `backend` and stores the lessons;
// returns how many were new. Store errors come back as they are.
Result<int> RecordRunLessons(Store& store, int64_t run_id, const Task& task,
                             const std::string& backend);

}  // namespace hone
