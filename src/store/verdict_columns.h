// The evaluations table's summary of a verdict: the columns a report reads
// without parsing the verdict's JSON (speedups, times in microseconds,
// samples, checks, device state), from the Verdict value itself so that they
// are the very numbers its JSON has.
//
// Pure: any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "verify/verdict.h"

namespace hone {

// The evaluations table's columns that summarise a verdict (times in
// microseconds, as the JSON has them).
struct EvaluationColumns {
  std::optional<double> speedup, speedup_compile, sol_percent;
  std::optional<double> cand_median_us, cand_ci_low_us, cand_ci_high_us, ref_median_us;
  int reps = 0;
  // {"candidate_us": [...], "reference_us": [...]}
  nlohmann::json samples = nlohmann::json::object();
  nlohmann::json checks = nlohmann::json::array();
  std::string device_state;  // its JSON, CUDA only
};

// `timed`: the verdict has a timing section (hone writes one for a timed
// candidate; an import may have a speedup without the times). A speedup of
// 0 for torch.compile means there was none.
EvaluationColumns ColumnsOf(const Verdict& v, bool timed);

}  // namespace hone
