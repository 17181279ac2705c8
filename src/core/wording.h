// Lists of alternatives in messages, worded one way everywhere.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace hone {

// "a", "a or b", "a, b or c"; "" for none.
std::string OneOf(const std::vector<std::string>& names);

}  // namespace hone
