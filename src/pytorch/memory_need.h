// What a PyTorch problem needs of a GPU's memory: under hone's memory plan
// (run/memory_plan.h, a compat ModelNew on a device, as KernelBench's
// candidates are), and under KernelBench's own evaluator, which holds one
// process's inputs, the reference's output, the candidate's forward and two
// copies of the model. Computed from a task's shapes and its reference's
// measured memory (a real load's, or an estimate's: OracleService::LoadMode),
// so it runs without a GPU: `hone task memory` prints it per problem and
// per card size. Pure arithmetic; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "run/memory_plan.h"
#include "task/task.h"

namespace hone {

// The card sizes a memory table shows by default, in GB (10^9 bytes, as
// --memory-cap counts).
inline const std::vector<double> kCardSizesGb = {24, 40, 48, 80};

struct CardFit {
  double card_gb = 0;
  bool kernelbench = false;  // KernelBench's evaluator fits
  MemoryPlan plan;           // hone's plan at this size: whether it fits, what it shrank
};

struct MemoryNeed {
  MemoryDemand demand;
  int64_t kernelbench = 0;       // KernelBench's evaluator's peak, bytes
  int64_t hone_full = 0;         // hone's plan with nothing shrunk
  int64_t hone_least = 0;        // hone's plan at its last rung (MemoryPlan's smallest settings)
  std::string hone_least_parts;  // that plan's MemoryPlan::breakdown
  std::vector<CardFit> cards;
  double Ratio() const {  // hone's least over KernelBench's
    return kernelbench > 0 ? static_cast<double>(hone_least) / static_cast<double>(kernelbench) : 0;
  }
};

// The need of `task` (a PyTorch task; its shapes resolved for the device)
// at each of `cards_gb`. Status when its shapes do not resolve.
Result<MemoryNeed> MemoryNeedOf(const Task& task, const std::vector<double>& cards_gb);

// KernelBench's evaluator's peak for `d`: the forward arguments, the model
// twice (the reference's and the candidate's), the reference's outputs
// kept while the candidate's forward runs, and one device context.
int64_t KernelBenchPeak(const MemoryDemand& d);

}  // namespace hone
