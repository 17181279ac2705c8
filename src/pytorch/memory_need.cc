#include "pytorch/memory_need.h"

#include "core/backend_names.h"
#include "run/buffer_layout.h"

namespace hone {

int64_t KernelBenchPeak(const MemoryDemand& d) {
  return d.forward_arguments + 2 * d.model + d.outputs + d.forward_peak + kDeviceBytesPerProcess;
}

Result<MemoryNeed> MemoryNeedOf(const Task& task, const std::vector<double>& cards_gb) {
  HONE_ASSIGN_OR_RETURN(std::vector<CaseShapes> cases, ResolveCases(task, kCudaBackend));
  MemoryNeed n;
  n.demand = DemandOf(task, cases, /*device=*/true, /*compat=*/true);
  n.kernelbench = KernelBenchPeak(n.demand);
  n.hone_full = PlanMemory(n.demand, /*free=*/0).peak;
  const MemoryPlan least = PlanMemory(n.demand, /*free=*/1);  // nothing fits 1 byte: the last rung
  n.hone_least = least.peak;
  n.hone_least_parts = least.breakdown;
  for (double gb : cards_gb) {
    CardFit c;
    c.card_gb = gb;
    const auto bytes = static_cast<int64_t>(gb * 1e9);
    c.kernelbench = n.kernelbench <= bytes;
    c.plan = PlanMemory(n.demand, bytes);
    n.cards.push_back(std::move(c));
  }
  return n;
}

}  // namespace hone
