#include "search/strategy_params.h"

#include <utility>

namespace hone {

StrategyParam IntParam(std::string key, std::string flag, std::string help, int initial, int min) {
  auto check = [min](const ParamValue& v) {
    const int n = std::get<int>(v);
    if (n >= min) return Status::Ok();
    if (min == 1) return Status::Invalid("must be positive");
    if (min == 0) return Status::Invalid("must not be negative");
    return Status::Invalid("must be at least " + std::to_string(min));
  };
  return {std::move(key), std::move(flag), std::move(help), initial, std::move(check)};
}

StrategyParam NamesParam(std::string key, std::string flag, std::string help,
                         std::vector<std::string> initial,
                         std::function<Status(const std::vector<std::string>&)> check) {
  return {std::move(key), std::move(flag), std::move(help), std::move(initial),
          [check = std::move(check)](const ParamValue& v) {
            return check(std::get<std::vector<std::string>>(v));
          }};
}

Status CheckParam(const StrategyParam& param, const ParamValue& value) {
  HONE_CHECK(value.index() == param.initial.index(), param.key + ": a value of another type");
  return param.check ? param.check(value).With(param.flag + ": ") : Status::Ok();
}

void StrategyParams::Declare(const StrategyParam& param) {
  HONE_CHECK(!Has(param.key), "strategy parameter '" + param.key + "' declared twice");
  values_.emplace(param.key, param.initial);
}

const ParamValue& StrategyParams::Value(std::string_view key) const {
  auto it = values_.find(key);
  HONE_CHECK(it != values_.end(), "no strategy parameter '" + std::string(key) + "'");
  return it->second;
}

ParamValue& StrategyParams::Mutable(std::string_view key) {
  return const_cast<ParamValue&>(std::as_const(*this).Value(key));
}

int StrategyParams::Int(std::string_view key) const {
  const ParamValue& v = Value(key);
  HONE_CHECK(std::holds_alternative<int>(v), std::string(key) + ": not a count");
  return std::get<int>(v);
}

const std::vector<std::string>& StrategyParams::Names(std::string_view key) const {
  const ParamValue& v = Value(key);
  HONE_CHECK(std::holds_alternative<std::vector<std::string>>(v),
             std::string(key) + ": not a list of names");
  return std::get<std::vector<std::string>>(v);
}

void StrategyParams::Set(std::string_view key, ParamValue value) {
  ParamValue& v = Mutable(key);
  HONE_CHECK(v.index() == value.index(), std::string(key) + ": a value of another type");
  // Assigned in place: a flag may hold a reference to the alternative.
  if (auto* n = std::get_if<int>(&value))
    std::get<int>(v) = *n;
  else
    std::get<std::vector<std::string>>(v) = std::move(std::get<std::vector<std::string>>(value));
}

nlohmann::json StrategyParams::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : values_)
    std::visit([&, &key = key](const auto& v) { j[key] = v; }, value);
  return j;
}

void StrategyParams::ReadJson(const nlohmann::json& j) {
  for (auto& [key, value] : values_) {
    if (!j.contains(key)) continue;
    std::visit([&, &key = key](auto& v) { j.at(key).get_to(v); }, value);
  }
}

}  // namespace hone
