#include "search/auto_strategy.h"

#include <algorithm>

#include "core/speedup_gain.h"
#include "search/bandit.h"
#include "store/candidate_kind.h"

namespace hone {
namespace {

// What costs are counted in: dollars when any call had a price, else
// tokens when any reported some, else calls.
enum class Currency { kDollars, kTokens, kCalls };

Currency CurrencyOf(const std::vector<AutoStrategy::ArmStats>& stats) {
  bool tokens = false;
  for (const auto& s : stats) {
    if (s.dollars > 0) return Currency::kDollars;
    tokens = tokens || s.tokens > 0;
  }
  return tokens ? Currency::kTokens : Currency::kCalls;
}

double CostIn(Currency c, const AutoStrategy::ArmStats& s) {
  switch (c) {
    case Currency::kDollars:
      return s.dollars;
    case Currency::kTokens:
      return static_cast<double>(s.tokens);
    case Currency::kCalls:
      return s.observed;
  }
  return s.observed;
}

// An arm whose calls cost nothing in the currency (a failed call among
// priced ones) still paid something: the gain is divided by at least this.
constexpr double kLeastCost = 1e-9;

// --arms: strategies that can be arms, none twice.
Status CheckArms(const std::vector<std::string>& arms) {
  const std::vector<std::string> known = StrategyNames(/*arms_only=*/true);
  if (arms.empty()) {
    std::string list;
    for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
    return Status::Invalid("name at least one of " + list);
  }
  for (auto it = arms.begin(); it != arms.end(); ++it) {
    if (std::find(known.begin(), known.end(), *it) == known.end())
      return Status::Invalid("expected " + OneOf(known) + ", got '" + *it + "'");
    if (std::find(arms.begin(), it, *it) != it)
      return Status::Invalid("'" + *it + "' is named twice");
  }
  return Status::Ok();
}

}  // namespace

const StrategySpec& AutoStrategy::Spec() {
  static const StrategySpec spec{
      .name = "auto",
      .params = {IntParam("auto_calls", "--auto-calls",
                          "LLM calls the bandit spreads over the strategies", 24, 1),
                 NamesParam("arms", "--arms", "the strategies to spread calls over",
                            {"sample", "refine", "evolve", "tree"}, CheckArms)},
      .make = [](const StrategyParams& p,
                 const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        const int calls = p.Int("auto_calls");
        std::vector<AutoArm> arms;
        for (const std::string& name : p.Names("arms")) {
          const StrategySpec& arm = *FindStrategy(name);
          StrategyParams sized = p;
          arm.size_for(sized, calls);
          arms.push_back({name, arm.make(sized, c)});
        }
        return std::make_unique<AutoStrategy>(std::move(arms), calls);
      },
      // What each arm needs, whether run alone or as an arm.
      .check =
          [](const StrategyParams& p) {
            for (const std::string& name : p.Names("arms"))
              HONE_RETURN_IF_ERROR(CheckParams(*FindStrategy(name), p));
            return Status::Ok();
          },
  };
  return spec;
}

AutoStrategy::AutoStrategy(std::vector<AutoArm> arms, int calls)
    : arms_(std::move(arms)), stats_(arms_.size()), calls_(calls) {}

std::vector<double> AutoStrategy::Rates() const {
  const Currency currency = CurrencyOf(stats_);
  std::vector<double> rates;
  for (const ArmStats& s : stats_)
    rates.push_back(s.observed > 0 ? s.gain / std::max(CostIn(currency, s), kLeastCost) : 0.0);
  return rates;
}

int AutoStrategy::ChooseArm(const std::vector<bool>& dry) const {
  std::vector<double> values = ScaledByLargest(Rates());
  std::vector<BanditArm> bandit;
  for (size_t i = 0; i < arms_.size(); ++i)
    bandit.push_back({values[i], stats_[i].proposed, !dry[i] && !arms_[i].strategy->Finished()});
  return ChooseUcb(bandit, kAutoExploration);
}

std::vector<Proposal> AutoStrategy::Propose(int max, int* next_id) {
  std::vector<Proposal> out;
  if (!pending_.empty()) return out;  // a round is under way
  max = std::min(max, calls_ - issued_);
  std::vector<bool> dry(arms_.size(), false);  // offered nothing this round
  while (static_cast<int>(out.size()) < max) {
    int arm = ChooseArm(dry);
    if (arm < 0) break;
    std::vector<Proposal> got = arms_[static_cast<size_t>(arm)].strategy->Propose(1, next_id);
    if (got.empty()) {
      dry[static_cast<size_t>(arm)] = true;
      continue;
    }
    Proposal& p = got.front();
    pending_[p.id] = {arm, p.kind};
    p.kind = ArmKind(arms_[static_cast<size_t>(arm)].name, p.kind);
    ++stats_[static_cast<size_t>(arm)].proposed;
    ++issued_;
    out.push_back(std::move(p));
  }
  return out;
}

void AutoStrategy::Deliver(AttemptResult r) {
  const Pending& pending = pending_.at(r.proposal.id);
  const size_t arm = static_cast<size_t>(pending.arm);
  r.proposal.kind = pending.kind;
  ArmStats& s = stats_[arm];
  ++s.observed;
  s.dollars += r.reply.cost_usd;
  s.tokens += r.reply.input_tokens + r.reply.output_tokens;
  if (r.passed()) {
    ++s.passed;
    s.gain += SpeedupGain(best_, r.speedup());
    best_ = std::max(best_, r.speedup());
  }
  arms_[arm].strategy->Observe(r);
  for (size_t i = 0; i < arms_.size(); ++i)
    if (i != arm) arms_[i].strategy->ObserveElsewhere(r);
}

void AutoStrategy::Observe(const AttemptResult& r) {
  if (!pending_.count(r.proposal.id)) return;  // not this round's
  round_.push_back(r);
  if (round_.size() < pending_.size()) return;
  std::sort(round_.begin(), round_.end(), [](const AttemptResult& a, const AttemptResult& b) {
    return a.proposal.id < b.proposal.id;
  });
  for (AttemptResult& result : round_) Deliver(std::move(result));
  round_.clear();
  pending_.clear();
}

bool AutoStrategy::Finished() const {
  if (!pending_.empty()) return false;
  if (issued_ >= calls_) return true;
  return std::all_of(arms_.begin(), arms_.end(),
                     [](const AutoArm& a) { return a.strategy->Finished(); });
}

nlohmann::json AutoStrategy::Summary() const {
  nlohmann::json arms = nlohmann::json::array();
  for (size_t i = 0; i < arms_.size(); ++i) {
    const ArmStats& s = stats_[i];
    arms.push_back({{"arm", arms_[i].name},
                    {"proposed", s.proposed},
                    {"observed", s.observed},
                    {"passed", s.passed},
                    {"gain", s.gain},
                    {"dollars", s.dollars},
                    {"tokens", s.tokens}});
  }
  return {{"arms", arms}, {"best_speedup", best_}};
}

}  // namespace hone
