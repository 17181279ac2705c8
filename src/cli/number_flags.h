// Numbers from the command line, checked before hone casts, adds or stores
// them: NaN, infinity and a negative value where none is meant are bad input
// naming the flag (Status::Invalid, exit 2), never a cast's undefined
// behaviour, a deadline already past, nor a null in a run's stored JSON.
// Shared by the evaluation flags (eval_flags), the search flags
// (search_flags) and `hone serve`/`hone worker`.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "core/status.h"

namespace hone::cli {

// The most seconds a time flag means: a week, which hone's clocks can still
// add to now and which milliseconds in an int64_t hold.
inline constexpr double kMaxFlagSeconds = 7 * 24 * 3600.0;

// A number of seconds: finite and positive (or 0 where `zero_ok`), else
// Status::Invalid naming `flag`; more than kMaxFlagSeconds is capped to it.
inline Result<double> CheckedSeconds(std::string_view flag, double seconds, bool zero_ok) {
  if (!std::isfinite(seconds) || seconds < 0 || (!zero_ok && seconds == 0))
    return Status::Invalid(fmt::format(
        "{}: expected a {}, got {}", flag,
        zero_ok ? "finite number of seconds, 0 or more" : "finite, positive number of seconds",
        seconds));
  return std::min(seconds, kMaxFlagSeconds);
}

// Any other number (a budget, a temperature): finite and, unless
// `negative_ok`, 0 or more; else Status::Invalid naming `flag`.
inline Status CheckFiniteNumber(std::string_view flag, double value, bool negative_ok = false) {
  if (std::isfinite(value) && (negative_ok || value >= 0)) return Status::Ok();
  return Status::Invalid(fmt::format("{}: expected a finite number{}, got {}", flag,
                                     negative_ok ? "" : ", 0 or more", value));
}

}  // namespace hone::cli
