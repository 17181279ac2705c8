// Machine-readable verdicts (`hone eval --json`). The schema is documented
// in docs/CLI.md; fields are only ever added.
#pragma once

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "verify/verdict.h"

namespace hone {

nlohmann::json VerdictToJson(const Verdict& v);
// The inverse, for verdicts read back from the store (a resumed search feeds
// them to its strategy): every field VerdictToJson writes except the device
// state's throttle bits and the sandbox's feature bits, which come back
// empty. Status::Invalid when `j` is not a verdict (no known status).
Result<Verdict> VerdictFromJson(const nlohmann::json& j);
// "passed" -> kPassed, ...; nullopt for an unknown name.
std::optional<VerdictStatus> ParseStatusName(std::string_view name);
nlohmann::json MachineToJson(const MachineInfo& m);

}  // namespace hone
