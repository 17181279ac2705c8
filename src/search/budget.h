// What a search may spend, and what it has spent. A limit of 0 means none.
// The loop stops proposing as soon as any limit is reached (calls already
// in flight finish and are counted), or when the target speedup is met.
#pragma once

#include <cstdint>
#include <string>

namespace hone {

struct Budget {
  int max_candidates = 0;  // LLM calls made
  int64_t max_tokens = 0;  // input + output
  double max_dollars = 0;
  double max_seconds = 0;     // wall time of the search
  double target_speedup = 0;  // stop once a passed candidate is this fast
};

struct Spend {
  int candidates = 0;  // LLM calls made (issued)
  int64_t input_tokens = 0, output_tokens = 0;
  double dollars = 0;
  double seconds = 0;
  double best_speedup = 0;
  int64_t tokens() const { return input_tokens + output_tokens; }
};

// Why the search must stop proposing, or "" while it may go on.
std::string StopReason(const Budget& b, const Spend& s);

}  // namespace hone
