// A task as text for people and for LLM prompts: the argument list that
// hone_forward receives, the shape cases of a backend and the tolerances.
// `hone task show` and the search's prompts print the same text, so what a
// model is told is exactly what a person inspecting the task sees.
// Pure functions of the task.
#pragma once

#include <string>

#include "task/task.h"

namespace hone {

// What hone_forward receives, case by case, every case of the task:
//   "  hone_forward receives, in order:\n"
//   "  case N=7:\n"
//   "    inputs[0] x            f32   [7]\n"
//   "    outputs[0] y           f32   [7]\n"
// `receiver` names who receives them ("ModelNew.forward" for a ModelNew
// file, whose prompt must not speak of the native contract).
std::string ContractArgumentsText(const Task& task, const std::string& receiver = "hone_forward");

// One line per case that runs on `backend` ("cpu", "cuda"), in order, with
// its symbol values and, when the task declares them, its cost in bytes and
// flops; the first (timed) case is marked. "  (none)\n" when no case runs.
std::string CasesText(const Task& task, const std::string& backend);

// The tolerance of every output and how many seeds and value distributions
// each case is verified with.
std::string ToleranceText(const Task& task);

}  // namespace hone
