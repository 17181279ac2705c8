#include "search/strategy.h"

#include <algorithm>

#include "search/auto_strategy.h"
#include "search/evolve_strategy.h"
#include "search/refine_strategy.h"
#include "search/sample_strategy.h"
#include "search/tree_strategy.h"

namespace hone {
namespace {

const char* const kArmNames[] = {"sample", "refine", "evolve", "tree"};

Status Positive(int v, const char* what) {
  return v > 0 ? Status::Ok() : Status::Invalid(std::string(what) + ": must be positive");
}

Status ValidateTree(const StrategyOptions& o) {
  HONE_RETURN_IF_ERROR(Positive(o.ideas, "--ideas"));
  HONE_RETURN_IF_ERROR(Positive(o.expansions, "--expansions"));
  HONE_RETURN_IF_ERROR(Positive(o.depth, "--depth"));
  return Positive(o.roots, "--roots");
}

Status ValidateArms(const std::vector<std::string>& arms) {
  if (arms.empty())
    return Status::Invalid("--arms: name at least one of sample, refine, evolve, tree");
  for (size_t i = 0; i < arms.size(); ++i) {
    if (std::find(std::begin(kArmNames), std::end(kArmNames), arms[i]) == std::end(kArmNames))
      return Status::Invalid("--arms: expected sample, refine, evolve or tree, got '" + arms[i] +
                             "'");
    if (std::find(arms.begin(), arms.begin() + static_cast<std::ptrdiff_t>(i), arms[i]) !=
        arms.begin() + static_cast<std::ptrdiff_t>(i))
      return Status::Invalid("--arms: '" + arms[i] + "' is named twice");
  }
  return Status::Ok();
}

// What every one of `names` needs, whether run alone or as an arm.
Status ValidateEach(const StrategyOptions& o, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name == "sample") HONE_RETURN_IF_ERROR(Positive(o.samples, "--samples"));
    if (name == "refine") {
      HONE_RETURN_IF_ERROR(Positive(o.chains, "--chains"));
      HONE_RETURN_IF_ERROR(Positive(o.turns, "--turns"));
    }
    if (name == "evolve") {
      HONE_RETURN_IF_ERROR(Positive(o.islands, "--islands"));
      HONE_RETURN_IF_ERROR(Positive(o.population, "--population"));
      if (o.generations < 0) return Status::Invalid("--generations: must not be negative");
    }
    if (name == "tree") HONE_RETURN_IF_ERROR(ValidateTree(o));
  }
  return Status::Ok();
}

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

std::unique_ptr<SearchStrategy> MakeOne(const StrategyOptions& o, const StrategyContext& context) {
  if (o.name == "sample") return std::make_unique<SampleStrategy>(context, o.samples);
  if (o.name == "refine") return std::make_unique<RefineStrategy>(context, o.chains, o.turns);
  if (o.name == "tree")
    return std::make_unique<TreeStrategy>(context,
                                          TreeOptions{o.ideas, o.expansions, o.depth, o.roots});
  return std::make_unique<EvolveStrategy>(context, o.islands, o.population, o.generations);
}

// `name` as an arm of auto: as large as `calls` calls need.
std::unique_ptr<SearchStrategy> MakeArm(StrategyOptions o, const std::string& name,
                                        const StrategyContext& context) {
  const int calls = o.auto_calls;
  o.name = name;
  o.samples = calls;
  o.chains = CeilDiv(calls, o.turns);
  o.generations = std::max(0, CeilDiv(calls, o.islands * o.population) - 1);
  o.expansions = calls;
  return MakeOne(o, context);
}

}  // namespace

Status ValidateStrategyOptions(const StrategyOptions& o) {
  if (o.name == "auto") {
    HONE_RETURN_IF_ERROR(Positive(o.auto_calls, "--auto-calls"));
    HONE_RETURN_IF_ERROR(ValidateArms(o.arms));
    return ValidateEach(o, o.arms);
  }
  if (std::find(std::begin(kArmNames), std::end(kArmNames), o.name) == std::end(kArmNames))
    return Status::Invalid("--strategy: expected sample, refine, evolve, tree or auto, got '" +
                           o.name + "'");
  return ValidateEach(o, {o.name});
}

Result<std::unique_ptr<SearchStrategy>> MakeStrategy(const StrategyOptions& o,
                                                     const StrategyContext& context) {
  HONE_RETURN_IF_ERROR(ValidateStrategyOptions(o));
  if (o.name != "auto") return MakeOne(o, context);
  std::vector<AutoArm> arms;
  for (const std::string& name : o.arms) arms.push_back({name, MakeArm(o, name, context)});
  return std::unique_ptr<SearchStrategy>(new AutoStrategy(std::move(arms), o.auto_calls));
}

}  // namespace hone
