// Lists in messages (alternatives, or all of several), worded one way
// everywhere.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace hone {

// "a", "a or b", "a, b or c"; "" for none.
std::string OneOf(const std::vector<std::string>& names);
// "a", "a and b", "a, b and c"; "" for none.
std::string AllOf(const std::vector<std::string>& names);

}  // namespace hone
