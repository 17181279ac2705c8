// What a task is like, for recalling lessons learnt on similar tasks
// (search/lesson_recall.h): its category, element types, tensor ranks, how
// many elements it moves and its arithmetic intensity, the last two at the
// first shape case that runs on the backend (the timed one); and how alike
// two tasks are, from those features alone (no embeddings, no model).
//
// Plain values and pure functions: no I/O, thread-safe. A feature that
// cannot be worked out (no cost formulas, a shape that does not evaluate)
// is left unknown, and similarity treats an unknown feature as half alike.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "task/task.h"

namespace hone {

struct TaskSignature {
  std::string name;                            // shown with a lesson; similarity ignores it
  std::string category;                        // lower case; "" when the task has none
  std::string backend;                         // "cpu", "cuda"
  std::vector<std::string> dtypes;             // of every input and output, sorted, unique
  std::vector<int> input_ranks, output_ranks;  // in declaration order
  // At the first case on the backend: every input and output element, and
  // the task's cost (bytes from the tensors when it declares none).
  std::optional<double> elements, bytes, flops;
  std::string cost_bytes, cost_flops;  // the formulas, as written ("" when absent)

  // flops / bytes; none when either is unknown or not positive.
  std::optional<double> Intensity() const;
};

TaskSignature SignatureOf(const Task& task, const std::string& backend);

nlohmann::json SignatureToJson(const TaskSignature& s);
// Fields missing or of the wrong type stay unknown; never fails.
TaskSignature SignatureFromJson(const nlohmann::json& j);

// How alike two tasks are, in [0, 1]: a weighted sum of
//   category  0.35  the same (case-insensitive) 1, different 0; unknown when
//                   either is generic ("pytorch", every PyTorch problem's;
//                   "other", a native task's default)
//   intensity 0.25  1 - |log10 AI(a) - log10 AI(b)| / 2: two decades apart is 0
//   dtypes    0.15  the Jaccard index of the two dtype sets
//   size      0.15  1 - |log2 elements(a) - log2 elements(b)| / 10: 1024x apart is 0
//   ranks     0.10  the overlap of the input ranks and of the output ranks (multisets)
// each term clamped to [0, 1], and 0.5 where either side does not know it.
// Symmetric; a task is 1 to itself when every feature is known.
double TaskSimilarity(const TaskSignature& a, const TaskSignature& b);

}  // namespace hone
