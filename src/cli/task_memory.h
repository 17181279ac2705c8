// hone task memory PROBLEM...: what each PyTorch problem needs of a GPU's
// memory under hone's plan and under KernelBench's evaluator, and which card
// sizes each fits (pytorch/memory_need.h). The problems are estimated, not
// run (OracleService::LoadMode::kEstimate), so full-size problems are read
// on a machine without a GPU. Main's thread.
#pragma once

#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/eval_flags.h"

namespace hone::cli {

struct TaskMemoryArgs {
  std::vector<std::string> paths;  // problem files or folders of them (a KernelBench level)
  std::vector<double> cards_gb;    // empty: kCardSizesGb
  EvalFlags flags;                 // --shape-scale, --size-policy
  Output out;
};

// Exit 0 when every path was read (a problem that cannot be estimated is a
// row saying why); 2 when a path is neither a .py file nor a folder with one.
int RunTaskMemory(const TaskMemoryArgs& a);

}  // namespace hone::cli
