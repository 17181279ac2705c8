// A profile (measure/profile.h) as the JSON of a verdict's "profile" key:
// what the store keeps, the JSONL export and `--json` print. Missing or
// wrong-typed keys read back as defaults, so older or imported records
// still load; reading never throws.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "measure/profile.h"

namespace hone {

nlohmann::json ProfileToJson(const ProfileReport& p);
ProfileReport ProfileFromJson(const nlohmann::json& j);
// The profile of a verdict's JSON; none when it has none (or it is not an
// object).
std::optional<ProfileReport> ProfileOfVerdict(const nlohmann::json& verdict);

}  // namespace hone
