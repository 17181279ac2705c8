#include "core/wording.h"

namespace hone {

namespace {

// Commas between the names, `last` before the final one.
std::string Joined(const std::vector<std::string>& names, const char* last) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + names[i];
  return out;
}

}  // namespace

std::string OneOf(const std::vector<std::string>& names) { return Joined(names, " or "); }

std::string AllOf(const std::vector<std::string>& names) { return Joined(names, " and "); }

}  // namespace hone
