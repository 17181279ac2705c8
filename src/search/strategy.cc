#include "search/strategy.h"

#include "search/auto_strategy.h"
#include "search/evolve_strategy.h"
#include "search/refine_strategy.h"
#include "search/sample_strategy.h"
#include "search/tree_strategy.h"

namespace hone {

const std::vector<const StrategySpec*>& Strategies() {
  static const std::vector<const StrategySpec*> all = {
      &SampleStrategy::Spec(), &RefineStrategy::Spec(), &EvolveStrategy::Spec(),
      &TreeStrategy::Spec(), &AutoStrategy::Spec()};
  return all;
}

const StrategySpec* FindStrategy(std::string_view name) {
  for (const StrategySpec* spec : Strategies())
    if (spec->name == name) return spec;
  return nullptr;
}

std::vector<std::string> StrategyNames(bool arms_only) {
  std::vector<std::string> names;
  for (const StrategySpec* spec : Strategies())
    if (!arms_only || spec->size_for) names.push_back(spec->name);
  return names;
}

StrategyOptions::StrategyOptions() {
  for (const StrategySpec* spec : Strategies())
    for (const StrategyParam& p : spec->params) {
      // "name" is the strategy's own key in the stored options.
      HONE_CHECK(p.key != "name", spec->name + ": a parameter may not be called 'name'");
      params.Declare(p);
    }
}

Status CheckParams(const StrategySpec& spec, const StrategyParams& params) {
  for (const StrategyParam& p : spec.params)
    HONE_RETURN_IF_ERROR(CheckParam(p, params.Value(p.key)));
  return Status::Ok();
}

Status ValidateStrategyOptions(const StrategyOptions& o) {
  const StrategySpec* spec = FindStrategy(o.name);
  if (!spec)
    return Status::Invalid("--strategy: expected " + OneOf(StrategyNames()) + ", got '" + o.name +
                           "'");
  HONE_RETURN_IF_ERROR(CheckParams(*spec, o.params));
  return spec->check ? spec->check(o.params) : Status::Ok();
}

Result<std::unique_ptr<SearchStrategy>> MakeStrategy(const StrategyOptions& o,
                                                     const StrategyContext& context) {
  HONE_RETURN_IF_ERROR(ValidateStrategyOptions(o));
  return FindStrategy(o.name)->make(o.params, context);
}

nlohmann::json StrategyOptionsToJson(const StrategyOptions& o) {
  nlohmann::json j = o.params.ToJson();
  j["name"] = o.name;
  return j;
}

void StrategyOptionsFromJson(const nlohmann::json& j, StrategyOptions& o) {
  o.name = j.value("name", o.name);
  o.params.ReadJson(j);
}

}  // namespace hone
