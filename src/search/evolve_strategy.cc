#include "search/evolve_strategy.h"

#include <algorithm>

namespace hone {
namespace {

constexpr size_t kArchivePerIsland = 8;
constexpr int kTournamentSize = 2;

}  // namespace

const StrategySpec& EvolveStrategy::Spec() {
  static const StrategySpec spec{
      .name = "evolve",
      .params = {IntParam("islands", "--islands", "islands", 2, 1),
                 IntParam("population", "--population",
                          "initial samples per island, and children per generation", 4, 1),
                 IntParam("generations", "--generations", "generations", 4, 0)},
      .make = [](const StrategyParams& p,
                 const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        return std::make_unique<EvolveStrategy>(c, p.Int("islands"), p.Int("population"),
                                                p.Int("generations"));
      },
      // The generations after the first samples that the calls fill, the
      // last one partly.
      .size_for =
          [](StrategyParams& p, int calls) {
            const int per_generation = p.Int("islands") * p.Int("population");
            p.Set("generations", std::max(0, (calls + per_generation - 1) / per_generation - 1));
          },
  };
  return spec;
}

EvolveStrategy::EvolveStrategy(StrategyContext context, int islands, int population,
                               int generations, uint64_t seed)
    : context_(std::move(context)),
      population_(population),
      total_(islands * population * (1 + generations)),
      islands_(static_cast<size_t>(islands)),
      rng_(seed) {}

Proposal EvolveStrategy::Fresh(int island) {
  Proposal p;
  p.kind = "sample";
  p.lineage = island;
  p.system = context_.prompts->System(*context_.language);
  p.messages = {
      {"user", context_.prompts->FirstTurn(*context_.task, *context_.language, context_.machine,
                                           context_.reference, context_.lessons)}};
  return p;
}

const EvolveStrategy::Member& EvolveStrategy::Tournament(const Island& island) {
  std::uniform_int_distribution<size_t> pick(0, island.archive.size() - 1);
  const Member* best = &island.archive[pick(rng_)];
  for (int k = 1; k < kTournamentSize; ++k) {
    const Member& m = island.archive[pick(rng_)];
    if (m.speedup > best->speedup) best = &m;
  }
  return *best;
}

const EvolveStrategy::Member* EvolveStrategy::BestElsewhere(int island) const {
  const Member* best = nullptr;
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (static_cast<int>(i) == island || islands_[i].archive.empty()) continue;
    const Member& m = islands_[i].archive.front();
    if (!best || m.speedup > best->speedup) best = &m;
  }
  return best;
}

Proposal EvolveStrategy::Child(int island) {
  const Island& home = islands_[static_cast<size_t>(island)];
  const Member& parent = Tournament(home);
  std::vector<PromptAttempt> parents = {parent.attempt};
  Proposal p;
  p.lineage = island;
  p.parents = {parent.id};
  p.kind = "mutate";
  const Member* other = BestElsewhere(island);
  if (other && std::uniform_int_distribution<int>(0, 2)(rng_) == 0) {
    parents.push_back(other->attempt);
    p.parents.push_back(other->id);
    p.kind = "crossover";
  }
  p.system = context_.prompts->System(*context_.language);
  p.messages = {
      {"user", context_.prompts->EvolveTurn(*context_.task, *context_.language, context_.machine,
                                            parents, context_.reference, context_.lessons)}};
  return p;
}

std::vector<Proposal> EvolveStrategy::Propose(int max, int* next_id) {
  std::vector<Proposal> out;
  while (issued_ < total_ && static_cast<int>(out.size()) < max) {
    // Islands take turns.
    int island = issued_ % static_cast<int>(islands_.size());
    Island& is = islands_[static_cast<size_t>(island)];
    bool seeding = is.issued < population_ || is.archive.empty();
    Proposal p = seeding ? Fresh(island) : Child(island);
    p.id = (*next_id)++;
    ++is.issued;
    ++issued_;
    out.push_back(std::move(p));
  }
  return out;
}

void EvolveStrategy::Observe(const AttemptResult& r) {
  if (!r.passed()) return;
  Island& is = islands_.at(static_cast<size_t>(r.proposal.lineage));
  for (const auto& m : is.archive)
    if (m.attempt.code == r.extraction.code) return;  // the same kernel again adds nothing
  is.archive.push_back({r.proposal.id, r.speedup(), {r.extraction.code, *r.verdict}});
  std::stable_sort(is.archive.begin(), is.archive.end(),
                   [](const Member& a, const Member& b) { return a.speedup > b.speedup; });
  if (is.archive.size() > kArchivePerIsland) is.archive.resize(kArchivePerIsland);
}

}  // namespace hone
