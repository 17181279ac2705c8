// Machine-readable verdicts (`hone eval --json`). The schema is documented
// in docs/CLI.md; fields are only ever added.
#pragma once

#include <nlohmann/json.hpp>

#include "verify/verdict.h"

namespace hone {

nlohmann::json VerdictToJson(const Verdict& v);
nlohmann::json MachineToJson(const MachineInfo& m);
std::string FeatureNames(uint64_t features);

}  // namespace hone
