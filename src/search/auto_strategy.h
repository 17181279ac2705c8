// `auto`: a bandit over strategies. The arms (sample, refine, evolve and
// tree by default, each sized so that it alone could take the whole budget)
// share `calls` LLM calls; each call goes to the arm with the highest UCB1
// score (search/bandit.h) on gain per unit of cost observed so far.
//
// Gain of an attempt: how much it raised the run's best speedup, as
// ln(new best / old best) (core/speedup_gain.h): scale-free, so a 10% step counts the
// same at 0.1x as at 5x. The first passing kernel sets the best and gains
// nothing (finding a correct kernel is not a speedup); a raise within
// kGainNoiseFloor is timing noise and gains nothing either. Cost: the
// reply's US dollars; when no call of the run has a price, its tokens
// (input + output); when none reports tokens either, one per call. An
// arm's value is its summed gain over its summed cost, scaled by the
// largest arm's; pulls are the calls it was given. An untried arm is tried
// first, in the order the arms are listed; ties go to the first listed.
// While no arm has gained, the calls go round the arms.
//
// Every proposal is stored with its arm in the kind (store/candidate_kind.h:
// "evolve:mutate", "tree:idea"); results go back to the arm that proposed
// them with the arm's own kind, and passed kernels to the other arms too
// (ObserveElsewhere: the tree starts from the best kernel known).
//
// Rounds (so that a resumed run, which runs the strategy again, decides the
// same): proposals are made only when every earlier one has its result, up
// to the room the loop offers; the round's results are held until all are in
// and then handed to the arms in the order proposed, never in the order the
// replies arrived. Driven by one thread (the loop's); never blocks.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "search/strategy.h"

namespace hone {

// UCB1's exploration weight for the arm that gets the next call.
inline constexpr double kAutoExploration = 0.5;

struct AutoArm {
  std::string name;  // "sample", "refine", "evolve", "tree"
  std::unique_ptr<SearchStrategy> strategy;
};

class AutoStrategy : public SearchStrategy {
 public:
  struct ArmStats {
    int proposed = 0, observed = 0, passed = 0;
    double gain = 0;  // summed SpeedupGain: ln of the raises of the run's best speedup
    double dollars = 0;
    int64_t tokens = 0;
  };

  // Its parameters: --auto-calls, --arms; the arms' own are checked too, and
  // each arm is made from them resized to the calls (StrategySpec::size_for).
  static const StrategySpec& Spec();

  // `arms` in the order untried ones are tried; `calls` > 0.
  AutoStrategy(std::vector<AutoArm> arms, int calls);
  std::vector<Proposal> Propose(int max, int* next_id) override;
  void Observe(const AttemptResult& result) override;
  bool Finished() const override;
  // {"arms": [{"arm", "proposed", "observed", "passed", "gain", "dollars",
  // "tokens"}...], "best_speedup"}.
  nlohmann::json Summary() const override;

  const std::vector<ArmStats>& stats() const { return stats_; }
  // Each arm's gain per unit of cost (the currency of the header comment),
  // before scaling; 0 for an arm with no result yet.
  std::vector<double> Rates() const;

 private:
  struct Pending {
    int arm;
    std::string kind;  // the arm's own kind, given back with the result
  };
  // The arm for the next call among those not `dry` this round, or -1.
  int ChooseArm(const std::vector<bool>& dry) const;
  void Deliver(AttemptResult r);

  std::vector<AutoArm> arms_;
  std::vector<ArmStats> stats_;
  int calls_, issued_ = 0;
  double best_ = 0;                   // the run's best speedup so far
  std::map<int, Pending> pending_;    // this round's proposals by id
  std::vector<AttemptResult> round_;  // their results, held until all are in
};

}  // namespace hone
