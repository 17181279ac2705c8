// A tool call's arguments checked against the tool's input schema before
// the tool sees them: the subset of JSON Schema hone's tools use (an object
// of named properties, each a string, number, integer, boolean or array of
// strings, some required, some with an enum). A client that sends a wrong
// argument gets a message naming it; one that sends an argument no tool
// knows is told so rather than ignored (a misspelt "time_budget" would
// otherwise silently time for the default).
//
// Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace hone::mcp {

// Ok, or Status::Invalid naming the argument and what was expected: its
// type (an "integer" may be written 3.0, but must fit 64 bits), its enum,
// a number's "minimum" and "maximum" and a string's "pattern" (an
// ECMAScript regular expression the whole string must match) where the
// schema gives them.
Status CheckArguments(const nlohmann::json& schema, const nlohmann::json& arguments);

// Schema builders, so that each tool's table entry reads as a list.
nlohmann::json StringArg(const std::string& description);
nlohmann::json NumberArg(const std::string& description);
nlohmann::json IntegerArg(const std::string& description);
nlohmann::json BoolArg(const std::string& description);
nlohmann::json StringListArg(const std::string& description);
nlohmann::json EnumArg(const std::string& description, const std::vector<std::string>& values);
// `arg` (a number's or integer's) with a "minimum" and "maximum".
nlohmann::json Bounded(nlohmann::json arg, double minimum, double maximum);
// `arg` (a string's) with a "pattern" the whole value must match.
nlohmann::json Matching(nlohmann::json arg, const std::string& pattern);
// {"type": "object", "properties": ..., "required": ..., "additionalProperties": false}
nlohmann::json ObjectSchema(nlohmann::json properties, std::vector<std::string> required = {});

}  // namespace hone::mcp
