#include "search/refine_strategy.h"

namespace hone {
namespace {

// Earlier exchanges (reply + feedback) kept in the prompt besides the first
// turn: enough to see what was tried, bounded so prompts stay small.
constexpr size_t kKeptExchanges = 3;

}  // namespace

const StrategySpec& RefineStrategy::Spec() {
  static const StrategySpec spec{
      .name = "refine",
      .params = {IntParam("chains", "--chains", "independent chains", 2, 1),
                 IntParam("turns", "--turns", "turns per chain", 4, 1)},
      .make = [](const StrategyParams& p,
                 const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        return std::make_unique<RefineStrategy>(c, p.Int("chains"), p.Int("turns"));
      },
      // As many chains of --turns turns as the calls fill.
      .size_for =
          [](StrategyParams& p, int calls) {
            const int turns = p.Int("turns");
            p.Set("chains", (calls + turns - 1) / turns);
          },
  };
  return spec;
}

RefineStrategy::RefineStrategy(StrategyContext context, int chains, int turns)
    : context_(std::move(context)), turns_(turns) {
  std::string first = context_.prompts->FirstTurn(
      *context_.task, *context_.language, context_.machine, context_.reference, context_.lessons);
  chains_.resize(static_cast<size_t>(chains));
  for (auto& c : chains_) c.history = {{"user", first}};
}

std::vector<ChatMessage> RefineStrategy::Window(const Chain& c) const {
  size_t keep = 1 + 2 * kKeptExchanges;
  if (c.history.size() <= keep) return c.history;
  std::vector<ChatMessage> out = {c.history.front()};
  out.insert(out.end(), c.history.end() - static_cast<std::ptrdiff_t>(keep - 1), c.history.end());
  return out;
}

std::vector<Proposal> RefineStrategy::Propose(int max, int* next_id) {
  std::vector<Proposal> out;
  for (size_t i = 0; i < chains_.size() && static_cast<int>(out.size()) < max; ++i) {
    Chain& c = chains_[i];
    if (c.waiting || c.turns_done >= turns_) continue;
    Proposal p;
    p.id = (*next_id)++;
    p.lineage = static_cast<int>(i);
    p.turn = c.turns_done;
    p.kind = "refine";
    if (c.last_attempt >= 0) p.parents = {c.last_attempt};
    p.system = context_.prompts->System(*context_.language);
    p.messages = Window(c);
    c.waiting = true;
    out.push_back(std::move(p));
  }
  return out;
}

void RefineStrategy::Observe(const AttemptResult& r) {
  Chain& c = chains_.at(static_cast<size_t>(r.proposal.lineage));
  c.waiting = false;
  ++c.turns_done;
  if (!r.reply.ok) return;  // nothing to learn from; the turn is spent
  c.last_attempt = r.proposal.id;
  c.history.push_back({"assistant", r.reply.text});
  if (r.verdict)
    c.history.push_back({"user", context_.prompts->FeedbackTurn(*r.verdict)});
  else
    c.history.push_back({"user", context_.prompts->ExtractionFailedTurn(r.extraction)});
}

bool RefineStrategy::Finished() const {
  for (const auto& c : chains_)
    if (c.waiting || c.turns_done < turns_) return false;
  return true;
}

}  // namespace hone
