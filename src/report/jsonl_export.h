// A run's attempts as JSON Lines, one object per attempt, for SFT and RL
// datasets (docs/EXPORT.md documents every field): the task, the prompt
// that was sent and the reply, the extracted code, the verdict's status,
// reason and timings, the speedups and the LLM call's cost. Pure: reads a
// RunData, writes text.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "report/run_data.h"

namespace hone {

struct ExportOptions {
  enum class Keep { kAll, kPassed, kBestPerTask };
  Keep keep = Keep::kAll;
  bool verdict = false;  // add the whole stored verdict as "verdict"
};

// "all", "passed", "best" -> Keep; nullopt for anything else.
std::optional<ExportOptions::Keep> ParseKeep(const std::string& name);

// The attempts `options` keeps, in the order stored, each with whether it
// is its task's best.
std::vector<std::pair<const AttemptView*, bool>> KeptAttempts(const RunData& run,
                                                              const ExportOptions& options);

// The row of one attempt.
nlohmann::json AttemptRow(const RunData& run, const AttemptView& a, bool is_best,
                          bool with_verdict);
// Writes the rows `options` keeps, one per line; returns how many.
int WriteJsonl(const RunData& run, const ExportOptions& options, std::ostream& out);

}  // namespace hone
