// What each strategy of an auto run (search/auto_strategy.h) was given and
// what it gained, read back from the stored attempts: the arm is the kind's
// prefix (store/candidate_kind.h), the gain of an attempt how much it raised
// its task's best speedup (core/speedup_gain.h), in seq order. The bandit
// takes a round's results in the order proposed, which seqs (the order
// replies were stored) may not follow, so two raises in one round may be
// credited differently here. Pure functions of a RunData.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_data.h"

namespace hone {

struct ArmSummary {
  std::string arm;
  int calls = 0, passed = 0;  // calls: attempts and calls for ideas
  double gain = 0;            // summed SpeedupGain over the task's best so far
  double cost_usd = 0;
  int64_t tokens = 0;
};

// One per arm, in the order of its first seq; empty unless the run's config
// names the auto strategy.
std::vector<ArmSummary> SummarizeArms(const RunData& run);

// "arms (auto): ..." then one line per arm; "" for none.
std::string ArmSummaryText(const std::vector<ArmSummary>& arms);
nlohmann::json ArmSummaryJson(const std::vector<ArmSummary>& arms);

}  // namespace hone
