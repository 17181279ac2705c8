// One candidate judged on every part of a problem, as a search needs it:
// one verdict. A FlashInfer-Trace definition's workloads and a
// robust-kbench task's configurations are parts (format/task_format.h); a
// kernel that is right and fast on one workload only is not what such a
// problem asks for, so `hone optimize` scores every reply on all of them.
//
// The parts are evaluated in order through EvaluateCandidate (the one
// evaluation entry, so a reply scores as `hone eval` and `hone bench` score
// it) and the first that does not pass decides: its verdict, its reason
// led by the part's label, so the feedback says which workload failed. When
// every part passes, the first part's verdict carries the geometric mean of
// the parts' speedups and a note with each part's own; its checks are every
// part's, each `where` led by its part's label. Thread-compatible, like the
// evaluator.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "build/builder.h"
#include "run/evaluator.h"

namespace hone {

struct TaskPart {
  std::string label;  // what tells the part apart ("n=4097"), for the verdict
  const Task* task = nullptr;
};

// A Status is the evaluator's own failure on some part, as EvaluateCandidate's.
Result<Verdict> EvaluateOnEveryPart(Evaluator& evaluator, Builder* builder,
                                    const std::vector<TaskPart>& parts,
                                    const std::filesystem::path& candidate,
                                    const EvalOptions& options, const ProgressFn& progress = {});

// The combination above, of (label, verdict) pairs already made, one per
// part in order up to the first that did not pass, of `total_parts` parts.
// A problem of one part keeps its verdict as it is.
Verdict CombinePartVerdicts(const std::vector<std::pair<std::string, Verdict>>& verdicts,
                            size_t total_parts);

}  // namespace hone
