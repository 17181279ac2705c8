// Evaluates a candidate that declares tunables (tunables.h) as every
// variant: builds them all first on a BuildPool (the evaluations then find
// their builds in the compile cache), verifies and times each with the
// evaluator, and returns the verdict of the fastest variant that passed,
// with its parameters (Verdict::tuned_params) and every variant's outcome
// (Verdict::tune_trials). When none passes, the first variant's verdict
// stands, with the trials. A candidate without tunables is evaluated as it
// is. The variant sources live in a temporary folder removed at the end;
// the verdict names the original candidate. With EvalOptions::metrics only
// the fastest variant is profiled, by one more evaluation of it.
//
// Native candidates (.cpp, .cu) only: a ModelNew file (.py) that declares
// tunables is Status::Invalid, as is a malformed declaration (naming its
// line). Thread-compatible, like the evaluator.
#pragma once

#include <filesystem>

#include "build/builder.h"
#include "run/evaluator.h"

namespace hone {

// `builder` (may be null: no prebuild) builds the backend's candidates.
Result<Verdict> EvaluateTuned(Evaluator& evaluator, Builder* builder, const Task& task,
                              const std::filesystem::path& candidate, const EvalOptions& options,
                              const ProgressFn& progress = {});

// EvaluateTuned where a candidate is one of many (hone bench, the service):
// a malformed declaration, or tunables in a ModelNew file, is that
// candidate's own compile_error verdict (naming its line), not a Status
// that would stop the bench or fail the job as the task's fault.
Result<Verdict> EvaluateCandidate(Evaluator& evaluator, Builder* builder, const Task& task,
                                  const std::filesystem::path& candidate,
                                  const EvalOptions& options, const ProgressFn& progress = {});

}  // namespace hone
