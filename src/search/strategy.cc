#include "search/strategy.h"

#include "search/evolve_strategy.h"
#include "search/refine_strategy.h"
#include "search/sample_strategy.h"

namespace hone {
namespace {

Status Positive(int v, const char* what) {
  return v > 0 ? Status::Ok() : Status::Invalid(std::string(what) + ": must be positive");
}

}  // namespace

Status ValidateStrategyOptions(const StrategyOptions& o) {
  if (o.name == "sample") return Positive(o.samples, "--samples");
  if (o.name == "refine") {
    HONE_RETURN_IF_ERROR(Positive(o.chains, "--chains"));
    return Positive(o.turns, "--turns");
  }
  if (o.name == "evolve") {
    HONE_RETURN_IF_ERROR(Positive(o.islands, "--islands"));
    HONE_RETURN_IF_ERROR(Positive(o.population, "--population"));
    if (o.generations < 0) return Status::Invalid("--generations: must not be negative");
    return Status::Ok();
  }
  return Status::Invalid("--strategy: expected sample, refine or evolve, got '" + o.name + "'");
}

Result<std::unique_ptr<SearchStrategy>> MakeStrategy(const StrategyOptions& o,
                                                     const StrategyContext& context) {
  HONE_RETURN_IF_ERROR(ValidateStrategyOptions(o));
  if (o.name == "sample")
    return std::unique_ptr<SearchStrategy>(new SampleStrategy(context, o.samples));
  if (o.name == "refine")
    return std::unique_ptr<SearchStrategy>(new RefineStrategy(context, o.chains, o.turns));
  return std::unique_ptr<SearchStrategy>(
      new EvolveStrategy(context, o.islands, o.population, o.generations));
}

}  // namespace hone
