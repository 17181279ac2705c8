// The parameters of search strategies. Each is declared once, by the
// strategy that owns it (its StrategySpec, search/strategy.h): the key it is
// stored under in a run's "strategy" object, its flag, the flag's help, its
// default and the values it accepts. The flags (cli/search_flags.cc), the
// options stored with a run and read back by --resume, validation and the
// strategy's construction all derive from that declaration, so adding a
// parameter is editing the owning strategy's files only.
//
// All strategies' parameters share one flag namespace and one JSON object,
// so keys and flags are unique across strategies.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/status.h"

namespace hone {

// A parameter's value: a count or a list of names; the alternative a
// parameter's default holds is its type for good.
using ParamValue = std::variant<int, std::vector<std::string>>;

struct StrategyParam {
  std::string key;     // in the run's "strategy" object: "auto_calls"
  std::string flag;    // "--auto-calls"
  std::string help;    // the flag's help, after the strategy's name and ": "
  ParamValue initial;  // the default
  // Why a value is refused, without the flag (CheckParam adds it); Ok when
  // it is accepted.
  std::function<Status(const ParamValue&)> check;
};

// A count of at least `min` (refused as "must be positive" for a minimum of
// 1, "must not be negative" for 0).
StrategyParam IntParam(std::string key, std::string flag, std::string help, int initial, int min);
// A list of names, on the command line comma-separated; `check` refuses a
// list.
StrategyParam NamesParam(std::string key, std::string flag, std::string help,
                         std::vector<std::string> initial,
                         std::function<Status(const std::vector<std::string>&)> check);

// Ok, or Status::Invalid "<flag>: <why>".
Status CheckParam(const StrategyParam& param, const ParamValue& value);

// The values of declared parameters, by key. Using a key that was never
// declared, or a value of another type than its default's, is a programming
// error (HONE_CHECK).
class StrategyParams {
 public:
  // Adds `param` at its default; its key must be new.
  void Declare(const StrategyParam& param);
  bool Has(std::string_view key) const { return values_.find(key) != values_.end(); }

  int Int(std::string_view key) const;
  const std::vector<std::string>& Names(std::string_view key) const;
  const ParamValue& Value(std::string_view key) const;
  // The value itself, for a flag to write into; stays valid while the
  // parameters live and are not assigned as a whole (Set and ReadJson
  // assign in place).
  ParamValue& Mutable(std::string_view key);
  void Set(std::string_view key, ParamValue value);

  // Every value under its key.
  nlohmann::json ToJson() const;
  // The values `j` has a key for, read back; others keep theirs. A value of
  // the wrong JSON type throws nlohmann::json::exception, as any malformed
  // stored config does.
  void ReadJson(const nlohmann::json& j);

 private:
  std::map<std::string, ParamValue, std::less<>> values_;
};

}  // namespace hone
