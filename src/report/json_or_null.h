// An optional number as JSON: the number, or null when absent (a speedup
// not timed, a SOL % not known). The report's JSON writers share it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace hone {

inline nlohmann::json JsonOrNull(const std::optional<double>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
}

}  // namespace hone
