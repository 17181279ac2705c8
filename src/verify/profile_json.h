// A profile (measure/profile.h) as the JSON of a verdict's "profile" key:
// what the store keeps, the JSONL export and `--json` print. Missing keys
// read back as defaults, so older records still load.
#pragma once

#include <nlohmann/json.hpp>

#include "measure/profile.h"

namespace hone {

nlohmann::json ProfileToJson(const ProfileReport& p);
ProfileReport ProfileFromJson(const nlohmann::json& j);

}  // namespace hone
