// The run's record on disk, written as it happens so that nothing is lost
// when a search is killed: RUN_DIR/attempts.jsonl (one JSON line per
// attempt, flushed: the prompt, every HTTP exchange with the LLM, the
// extraction, the verdict), RUN_DIR/candidates/ID.cpp|.cu (every extracted
// source) and, at the end, RUN_DIR/summary.json. API keys never appear:
// they travel in headers, which are not recorded. Thread-compatible (the
// search loop's thread writes).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "core/status.h"
#include "search/strategy.h"

namespace hone {

class RunRecord {
 public:
  static Result<RunRecord> Create(const std::filesystem::path& dir);
  // A run folder no other run uses, created here: `wanted` when it does not
  // exist or is empty; otherwise, when `numbered`, the first free of
  // wanted-2, wanted-3, ... (mkdir is atomic, so two runs started in the
  // same second get two folders), else an error naming the folder.
  static Result<std::filesystem::path> Claim(const std::filesystem::path& wanted, bool numbered);
  // Writes the candidate source; returns its path.
  Result<std::filesystem::path> SaveCandidate(int id, const std::string& code,
                                              const std::string& extension);  // ".cu"
  Status Append(const AttemptResult& r, const std::filesystem::path& candidate);
  Status WriteSummary(const std::string& json);
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::ofstream attempts_;
};

}  // namespace hone
