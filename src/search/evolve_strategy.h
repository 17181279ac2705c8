// `evolve`: an archive of evaluated kernels split into islands. Each island
// starts from `population` independent samples; after that every proposal
// shows parents with their results and asks for a faster kernel: a mutation
// of one parent picked by tournament on speedup within the island, or (one
// time in three, once two islands have passed kernels) a crossover with the
// best kernel of another island, which carries ideas between islands while
// each keeps its own line. Islands with no passing kernel yet sample afresh.
// Steady state: a child is proposed as soon as a slot is free, not per
// generation. Total proposals: islands x population x (1 + generations).
#pragma once

#include <random>

#include "search/strategy.h"

namespace hone {

class EvolveStrategy : public SearchStrategy {
 public:
  // Its parameters: --islands, --population, --generations.
  static const StrategySpec& Spec();

  EvolveStrategy(StrategyContext context, int islands, int population, int generations,
                 uint64_t seed = 1);
  std::vector<Proposal> Propose(int max, int* next_id) override;
  void Observe(const AttemptResult& result) override;
  bool Finished() const override { return issued_ >= total_; }

 private:
  struct Member {
    int id;
    double speedup;
    PromptAttempt attempt;
  };
  struct Island {
    std::vector<Member> archive;  // passed kernels, fastest first, bounded
    int issued = 0;
  };
  Proposal Fresh(int island);
  Proposal Child(int island);
  const Member& Tournament(const Island& island);
  const Member* BestElsewhere(int island) const;

  StrategyContext context_;
  int population_, total_, issued_ = 0;
  std::vector<Island> islands_;
  std::mt19937_64 rng_;
};

}  // namespace hone
