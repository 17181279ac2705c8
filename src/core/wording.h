// Lists, durations, sizes and other numbers in messages (alternatives, or
// all of several; a number of seconds, of bytes, any other value), worded one
// way everywhere: users and LLMs read these words back in reasons, checks and
// notes. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hone {

// "a", "a or b", "a, b or c"; "" for none.
std::string OneOf(const std::vector<std::string>& names);
// "a", "a and b", "a, b and c"; "" for none.
std::string AllOf(const std::vector<std::string>& names);
// A duration with the unit that suits it: "12.3 us", "4.567 ms", "2.10 s".
std::string Seconds(double s);
// A duration of seconds to a tenth, for waits and build steps: "12.3 s".
std::string TenthsOfSeconds(double s);
// "6.40 GB", or "8.9 MB" under 0.1 GB (decimal units).
std::string Gigabytes(int64_t bytes);
// Any other value, to six significant digits: "1.5", "0.000123".
std::string Num(double v);

}  // namespace hone
