#include "search/sample_strategy.h"

namespace hone {

const StrategySpec& SampleStrategy::Spec() {
  static const StrategySpec spec{
      .name = "sample",
      .params = {IntParam("samples", "--samples", "candidates", 8, 1)},
      .make = [](const StrategyParams& p,
                 const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        return std::make_unique<SampleStrategy>(c, p.Int("samples"));
      },
      .size_for = [](StrategyParams& p, int calls) { p.Set("samples", calls); },
  };
  return spec;
}

SampleStrategy::SampleStrategy(StrategyContext context, int samples)
    : context_(std::move(context)), samples_(samples) {
  first_turn_ = context_.prompts->FirstTurn(*context_.task, *context_.language, context_.machine,
                                            context_.reference, context_.lessons);
}

std::vector<Proposal> SampleStrategy::Propose(int max, int* next_id) {
  std::vector<Proposal> out;
  while (issued_ < samples_ && static_cast<int>(out.size()) < max) {
    Proposal p;
    p.id = (*next_id)++;
    p.lineage = issued_++;
    p.kind = "sample";
    p.system = context_.prompts->System(*context_.language);
    p.messages = {{"user", first_turn_}};
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace hone
