// `refine`: K independent chains of T turns. Each turn sends the chain's own
// history: the first prompt, then for every earlier turn the model's reply
// and the feedback on it (compiler errors, mismatches, timings, speedup,
// SOL %). A turn whose LLM call failed outright is spent without adding to
// the history. Long histories keep the first prompt and the latest turns.
#pragma once

#include "search/strategy.h"

namespace hone {

class RefineStrategy : public SearchStrategy {
 public:
  // Its parameters: --chains, --turns.
  static const StrategySpec& Spec();

  RefineStrategy(StrategyContext context, int chains, int turns);
  std::vector<Proposal> Propose(int max, int* next_id) override;
  void Observe(const AttemptResult& result) override;
  bool Finished() const override;

 private:
  struct Chain {
    std::vector<ChatMessage> history;  // starts with the first turn
    int turns_done = 0;
    bool waiting = false;
    int last_attempt = -1;  // id of the latest attempt, the next one's parent
  };
  // The history sent: the first prompt and the latest exchanges.
  std::vector<ChatMessage> Window(const Chain& c) const;

  StrategyContext context_;
  int turns_;
  std::vector<Chain> chains_;
};

}  // namespace hone
