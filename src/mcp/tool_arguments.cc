#include "mcp/tool_arguments.h"

#include <algorithm>
#include <cmath>
#include <regex>

namespace hone::mcp {
namespace {

bool HasType(const nlohmann::json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_number_integer() || value.is_number_unsigned()) return true;
    if (!value.is_number_float()) return false;
    // Range first: casting a double outside int64's range is undefined.
    const double d = value.get<double>();
    return d >= -0x1p63 && d < 0x1p63 && d == std::trunc(d);
  }
  if (type == "boolean") return value.is_boolean();
  if (type == "array") return value.is_array();
  if (type == "object") return value.is_object();
  return true;
}

std::string Article(const std::string& type) {
  return (type == "integer" || type == "array" || type == "object" ? "an " : "a ") + type;
}

Status CheckOne(const std::string& name, const nlohmann::json& spec, const nlohmann::json& value) {
  const std::string type = spec.value("type", "");
  if (!type.empty() && !HasType(value, type))
    return Status::Invalid("argument '" + name + "': expected " + Article(type) + ", got " +
                           value.dump());
  if (type == "array" && spec.contains("items")) {
    const std::string item = spec["items"].value("type", "");
    for (const auto& v : value)
      if (!HasType(v, item))
        return Status::Invalid("argument '" + name + "': every item must be " + Article(item) +
                               ", got " + v.dump());
  }
  if (value.is_number()) {
    const double d = value.get<double>();
    if ((spec.contains("minimum") && d < spec["minimum"].get<double>()) ||
        (spec.contains("maximum") && d > spec["maximum"].get<double>()))
      return Status::Invalid("argument '" + name + "': " + value.dump() + " is not within " +
                             spec.value("minimum", nlohmann::json()).dump() + " to " +
                             spec.value("maximum", nlohmann::json()).dump());
  }
  if (value.is_string() && spec.contains("pattern") &&
      !std::regex_match(value.get<std::string>(),
                        std::regex(spec["pattern"].get<std::string>(), std::regex::ECMAScript)))
    return Status::Invalid("argument '" + name + "': " + value.dump() + " does not match " +
                           spec["pattern"].get<std::string>());
  if (spec.contains("enum")) {
    const auto& allowed = spec["enum"];
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a.get<std::string>();
      return Status::Invalid("argument '" + name + "': " + value.dump() + " is not one of " + list);
    }
  }
  return Status::Ok();
}

nlohmann::json Typed(const char* type, const std::string& description) {
  return {{"type", type}, {"description", description}};
}

}  // namespace

Status CheckArguments(const nlohmann::json& schema, const nlohmann::json& arguments) {
  if (!arguments.is_object()) return Status::Invalid("arguments must be an object");
  const nlohmann::json& properties = schema["properties"];
  for (const auto& [name, value] : arguments.items()) {
    if (!properties.contains(name)) {
      std::string known;
      for (const auto& [k, v] : properties.items()) known += (known.empty() ? "" : ", ") + k;
      return Status::Invalid("argument '" + name + "': not an argument of this tool (it takes " +
                             known + ")");
    }
    HONE_RETURN_IF_ERROR(CheckOne(name, properties[name], value));
  }
  for (const auto& required : schema.value("required", nlohmann::json::array()))
    if (!arguments.contains(required.get<std::string>()))
      return Status::Invalid("argument '" + required.get<std::string>() + "' is required");
  return Status::Ok();
}

nlohmann::json StringArg(const std::string& d) { return Typed("string", d); }
nlohmann::json NumberArg(const std::string& d) { return Typed("number", d); }
nlohmann::json IntegerArg(const std::string& d) { return Typed("integer", d); }
nlohmann::json BoolArg(const std::string& d) { return Typed("boolean", d); }
nlohmann::json StringListArg(const std::string& d) {
  nlohmann::json j = Typed("array", d);
  j["items"] = {{"type", "string"}};
  return j;
}
nlohmann::json EnumArg(const std::string& d, const std::vector<std::string>& values) {
  nlohmann::json j = Typed("string", d);
  j["enum"] = values;
  return j;
}

nlohmann::json Bounded(nlohmann::json arg, double minimum, double maximum) {
  arg["minimum"] = minimum;
  arg["maximum"] = maximum;
  return arg;
}

nlohmann::json Matching(nlohmann::json arg, const std::string& pattern) {
  arg["pattern"] = pattern;
  return arg;
}

nlohmann::json ObjectSchema(nlohmann::json properties, std::vector<std::string> required) {
  nlohmann::json j = {
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) j["required"] = std::move(required);
  return j;
}

}  // namespace hone::mcp
