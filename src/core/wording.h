// Lists and durations in messages (alternatives, or all of several; a
// number of seconds), worded one way everywhere.
// Pure functions; thread-safe.
#pragma once

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

}  // namespace hone
