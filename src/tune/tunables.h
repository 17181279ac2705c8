// Parameters a candidate declares for hone to tune instead of asking the
// model for every tile size:
//
//   // hone: tune BLOCK in {64, 128, 256}
//   // hone: tune UNROLL in {1, 4}
//   #ifndef BLOCK
//   #define BLOCK 128
//   #endif
//
// Each declaration is one comment line; values are numbers or identifiers.
// A variant is the source with `#define NAME value` lines put first, so the
// source's own default must be guarded by #ifndef (an unguarded #define of a
// tunable is refused: it would silently override every variant). At most 16
// values a parameter and 64 variants in all. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace hone {

struct Tunable {
  std::string name;
  std::vector<std::string> values;
  int line = 0;
};

using TuneAssignment = std::vector<std::pair<std::string, std::string>>;

inline constexpr size_t kMaxTuneVariants = 64;

// The declared parameters, in source order; none is an empty list.
// Status::Invalid names the line of a malformed declaration, a repeated
// name, too many values or variants, or an unguarded #define.
Result<std::vector<Tunable>> ParseTunables(std::string_view source);

// Every combination, the first parameter varying slowest.
std::vector<TuneAssignment> Combinations(const std::vector<Tunable>& tunables);

// The source of one variant: its #defines, then `#line 1` and the source.
std::string ApplyTunables(std::string_view source, const TuneAssignment& assignment);

// "BLOCK=128 UNROLL=4"; a file-name-safe form with `_` for spaces.
std::string FormatAssignment(const TuneAssignment& assignment);

}  // namespace hone
