// Machine-readable verdicts (`hone eval --json`). The schema is documented
// in docs/CLI.md; fields are only ever added.
#pragma once

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "verify/verdict.h"

namespace hone {

nlohmann::json VerdictToJson(const Verdict& v);
// The inverse, for verdicts read back from the store (a resumed search feeds
// them to its strategy, and the store fills its columns from it): every
// field VerdictToJson writes except the sandbox's feature bits, which come
// back empty, and the device state's idle bit. Both directions go through
// one schema (verdict_json.cc), so a field added to it is read as it is
// written. Lenient about what is missing (verify/json_schema.h): older and
// imported verdicts load with defaults. Status::Invalid when `j` is not a
// verdict (no known status) or a field has the wrong type.
Result<Verdict> VerdictFromJson(const nlohmann::json& j);
// The verdict as the store keeps it and a resumed search reads it back:
// VerdictFromJson of VerdictToJson's text. Not the same as `v`: times are
// written in microseconds and read back in seconds, which is not exact, and
// some bits come back empty (above). A search strategy must decide from
// this form, so that the live run and its replay see the same verdict.
// Status::Invalid only if VerdictToJson wrote something its inverse rejects.
Result<Verdict> VerdictAsStored(const Verdict& v);
// "passed" -> kPassed, ...; nullopt for an unknown name.
std::optional<VerdictStatus> ParseStatusName(std::string_view name);
// Sections of VerdictToJson's object, on their own (the store's columns).
nlohmann::json MachineToJson(const MachineInfo& m);
// MachineToJson's inverse; Status::Invalid for a value of the wrong kind.
Result<MachineInfo> MachineFromJson(const nlohmann::json& j);
nlohmann::json ChecksToJson(const std::vector<Check>& checks);
nlohmann::json DeviceStateToJson(const DeviceStateSummary& d);

}  // namespace hone
