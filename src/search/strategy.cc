#include "search/strategy.h"

#include "search/evolve_strategy.h"
#include "search/refine_strategy.h"
#include "search/sample_strategy.h"

namespace hone {

Result<std::unique_ptr<SearchStrategy>> MakeStrategy(const StrategyOptions& o,
                                                     const StrategyContext& context) {
  auto positive = [](int v, const char* what) {
    return v > 0 ? Status::Ok() : Status::Invalid(std::string(what) + ": must be positive");
  };
  if (o.name == "sample") {
    HONE_RETURN_IF_ERROR(positive(o.samples, "--samples"));
    return std::unique_ptr<SearchStrategy>(new SampleStrategy(context, o.samples));
  }
  if (o.name == "refine") {
    HONE_RETURN_IF_ERROR(positive(o.chains, "--chains"));
    HONE_RETURN_IF_ERROR(positive(o.turns, "--turns"));
    return std::unique_ptr<SearchStrategy>(new RefineStrategy(context, o.chains, o.turns));
  }
  if (o.name == "evolve") {
    HONE_RETURN_IF_ERROR(positive(o.islands, "--islands"));
    HONE_RETURN_IF_ERROR(positive(o.population, "--population"));
    if (o.generations < 0) return Status::Invalid("--generations: must not be negative");
    return std::unique_ptr<SearchStrategy>(
        new EvolveStrategy(context, o.islands, o.population, o.generations));
  }
  return Status::Invalid("--strategy: expected sample, refine or evolve, got '" + o.name + "'");
}

}  // namespace hone
