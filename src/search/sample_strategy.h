// `sample`: N independent candidates from the same first prompt (the
// "monkeys" of KernelBench); diversity comes from the sampling temperature.
#pragma once

#include "search/strategy.h"

namespace hone {

class SampleStrategy : public SearchStrategy {
 public:
  // Its parameter: --samples, the candidates.
  static const StrategySpec& Spec();

  SampleStrategy(StrategyContext context, int samples);
  std::vector<Proposal> Propose(int max, int* next_id) override;
  void Observe(const AttemptResult&) override {}
  bool Finished() const override { return issued_ >= samples_; }

 private:
  StrategyContext context_;
  int samples_, issued_ = 0;
  std::string first_turn_;
};

}  // namespace hone
