// The seam between a search strategy and the loop that runs it (after TVM
// meta_schedule's SearchStrategy): the strategy proposes conversations to
// send to the LLM and observes what came of each one; the loop
// (search/optimizer.h) makes the calls, extracts, builds and evaluates.
//
// Strategies are driven by one thread (the loop's); they never block.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/wording.h"  // OneOf, for the strategies' messages and help
#include "llm/provider.h"
#include "measure/machine.h"
#include "search/extract.h"
#include "search/prompt.h"
#include "search/strategy_params.h"
#include "task/task.h"
#include "verify/verdict.h"

namespace hone {

// One LLM call to make.
struct Proposal {
  int id = 0;                // unique in the run, in the order proposed
  int lineage = 0;           // refine: the chain; evolve: the island; sample: the sample
  int turn = 0;              // refine: 0-based turn within the chain
  std::vector<int> parents;  // ids of the attempts whose code this one builds on
  std::string kind;          // "sample", "refine", "mutate", ... (store/candidate_kind.h)
  std::string label;         // tree: the idea the attempt implements; stored with it
  // False for a call that asks for no code (the tree's call for ideas): its
  // reply is stored and handed back as it is, never extracted or evaluated.
  bool wants_code = true;
  std::string system;
  std::vector<ChatMessage> messages;
};

// What came of a proposal.
struct AttemptResult {
  Proposal proposal;
  ChatReply reply;
  Extraction extraction;           // meaningful when reply.ok
  std::optional<Verdict> verdict;  // when code was extracted and evaluated
  bool passed() const { return verdict && verdict->status == VerdictStatus::kPassed; }
  // The speedup of a passed candidate; 0 otherwise.
  double speedup() const { return passed() ? verdict->timing.speedup : 0; }
};

// What every strategy needs to write prompts.
struct StrategyContext {
  const Task* task = nullptr;
  const Language* language = nullptr;  // what candidates are asked in (lang/language.h)
  MachineInfo machine;
  const PromptBuilder* prompts = nullptr;
  ReferenceTiming reference;  // measured before the first turn, when it could be
  // Lessons from similar tasks for the first turn and evolution turns, one
  // line each (search/lesson_recall.h); none when the run recalls none.
  std::vector<std::string> lessons;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // At most `max` proposals that can be sent now; fewer (or none) when the
  // strategy waits for results. Ids come from `next_id`, incremented.
  virtual std::vector<Proposal> Propose(int max, int* next_id) = 0;
  virtual void Observe(const AttemptResult& result) = 0;
  // The result of a proposal another strategy made in the same run (the
  // auto strategy's other arms), for strategies that build on the best
  // kernel known; ignored by default.
  virtual void ObserveElsewhere(const AttemptResult&) {}
  // True when no proposal will ever come again.
  virtual bool Finished() const = 0;
  // What the strategy did, for the run's summary (summary.json,
  // "strategy_summary"); null when it has nothing to add.
  virtual nlohmann::json Summary() const { return nullptr; }
};

// What hone knows of a strategy before making one, declared by the strategy
// itself (its class's Spec()): everything about its parameters lives there.
struct StrategySpec {
  std::string name;                   // --strategy's value
  std::vector<StrategyParam> params;  // its own, in the order of their flags
  // The strategy, from parameters that passed ValidateStrategyOptions.
  std::function<std::unique_ptr<SearchStrategy>(const StrategyParams&, const StrategyContext&)>
      make = nullptr;
  // As an arm of auto: its parameters resized so that it alone could make
  // `calls` calls. Null for a strategy that cannot be an arm.
  std::function<void(StrategyParams&, int calls)> size_for = nullptr;
  // Checks beyond each parameter's own (auto: its arms' parameters), run
  // once those passed; null when there are none.
  std::function<Status(const StrategyParams&)> check = nullptr;
};

// Every strategy, in the order of --strategy's help and of the flags.
const std::vector<const StrategySpec*>& Strategies();
// The strategy called `name`, or null.
const StrategySpec* FindStrategy(std::string_view name);
// The names of Strategies(), or of those that can be arms of auto.
std::vector<std::string> StrategyNames(bool arms_only = false);

// Which strategy to run, and every strategy's parameters (only the chosen
// one's, or its arms', are used).
struct StrategyOptions {
  StrategyOptions();  // each parameter at its declared default
  std::string name = "refine";
  StrategyParams params;
};

// Status::Invalid naming the flag of the first of `spec`'s parameters that
// is refused.
Status CheckParams(const StrategySpec& spec, const StrategyParams& params);

// Status::Invalid naming the flag: an unknown strategy, a value its
// parameters (or, for auto, its arms') refuse. Checked before a run is
// stored.
Status ValidateStrategyOptions(const StrategyOptions& options);

// The strategy `options.name`, or an error naming the known ones. For
// `auto`, each arm is sized so that it alone could make `auto_calls` calls
// (search/auto_strategy.h).
Result<std::unique_ptr<SearchStrategy>> MakeStrategy(const StrategyOptions& options,
                                                     const StrategyContext& context);

// The options as stored with a run ("strategy" in its config): {"name", and
// one key per parameter}; read back by --resume. Keys `j` lacks (a run
// stored before the parameter existed) keep their values.
nlohmann::json StrategyOptionsToJson(const StrategyOptions& options);
void StrategyOptionsFromJson(const nlohmann::json& j, StrategyOptions& options);

}  // namespace hone
