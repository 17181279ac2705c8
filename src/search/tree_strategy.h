// `tree`: a tree of optimisation ideas. Each node is a kernel; a child
// applies one idea to its parent's kernel.
//
// Round 0 finds a root, a first passing kernel: up to `roots` attempts from
// the first prompt in one chain, each seeing the feedback on the one before
// (kind "root"). A passing kernel of another strategy of the same run
// (ObserveElsewhere: the auto strategy's other arms) that is faster than
// every node becomes a root as well, so the tree starts from the best kernel
// known. Then, up to `expansions` times, one node is expanded: one call asks
// the model for `ideas` distinct ideas for the node's kernel (kind "ideas",
// no code asked), and every new idea becomes a child that one call each
// implements (kind "idea", the idea as the attempt's label).
//
// Gain: a node's speedup over the kernel it improved upon (its parent; for
// an adopted root, the fastest node before it; 1 for the first root). Its
// reward: ln(gain), capped at 1, and 0 for a gain under the noise floor
// (core/speedup_gain.h: kGainNoiseFloor), a regression or a failure;
// scale-free, so a 10% step counts the same at 0.1x as at 5x.
// Expandable: a passed node less than `depth` deep, not slower than its
// parent beyond timing noise (slower by more than the noise floor and, when
// both have a speedup interval, with the intervals apart: an idea that
// changed nothing stays expandable whichever side of its parent it was
// measured), whose last call for ideas brought new ones. The node expanded is
// the expandable one with the highest UCB1 score (search/bandit.h) over
// its rewards: its own and each finished child's (what expanding it
// brought; a failed call for ideas or one with no new idea counts 0).
// Value: their mean; pulls: how many there are; exploration
// kTreeExploration; on a tie the faster kernel, then the older node. So
// the node whose step gained most is expanded next, and a node whose ideas
// stop paying gives way to others.
//
// Failed ideas keep their reason (the verdict's status and first line, no
// code in the reply, or the LLM call's error). Every call for ideas lists
// the ideas applied on the way to the node, those tried on it with their
// outcome and those that failed anywhere with their reason, and a proposed
// idea equal to any of them (search/idea_list.h: NormalizeIdea) is dropped.
// An LLM call that failed or a reply with no usable code is recorded on its
// node, never retried by itself.
//
// Determinism (resume replays a run by running the strategy again): one
// expansion at a time, and the next node is chosen only once every child of
// the last one has its result; nodes are kept in the order proposed and
// statistics computed from them afresh. So the proposals depend on the
// results only, not on the order concurrent replies arrived in. The results
// must be the ones a resumed run reads back: the loop hands over verdicts as
// stored (verify/verdict_json.h: VerdictAsStored), since the prompts quote
// their times. Driven by one thread (the loop's); never blocks.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/bandit.h"
#include "search/strategy.h"

namespace hone {

// UCB1's exploration weight for the node to expand.
inline constexpr double kTreeExploration = 0.5;

// The tree's parameters; their flags and defaults are declared in
// TreeStrategy::Spec().
struct TreeOptions {
  int ideas = 0;       // ideas asked for per expansion
  int expansions = 0;  // calls for ideas in all
  int depth = 0;       // nodes this deep are not expanded (a root is 0 deep)
  int roots = 0;       // attempts at a first passing kernel
};

class TreeStrategy : public SearchStrategy {
 public:
  enum class NodeState { kWaiting, kPassed, kFailed };
  struct Node {
    int attempt = -1;  // the attempt's proposal id; -1 until proposed
    int parent = -1;   // index into nodes(); -1 for a root
    int depth = 0;
    std::string idea;  // empty for a root
    NodeState state = NodeState::kWaiting;
    std::string failure;   // why it failed, on one line
    PromptAttempt kernel;  // passed: its code and verdict
    double speedup = 0;
    double gain = 0;  // passed: over the kernel it improved upon
    int expansions = 0;
    int fruitless = 0;           // calls for ideas that failed or brought no new idea
    bool exhausted = false;      // its last call for ideas brought no new one
    std::string expansion_note;  // what came of its last call for ideas
    bool adopted = false;        // a root from another strategy's attempt
    std::vector<int> children;   // indices, in the order made
  };

  // Its parameters: --ideas, --expansions, --depth, --roots (TreeOptions).
  static const StrategySpec& Spec();

  TreeStrategy(StrategyContext context, TreeOptions options);
  std::vector<Proposal> Propose(int max, int* next_id) override;
  void Observe(const AttemptResult& result) override;
  void ObserveElsewhere(const AttemptResult& result) override;
  // True when no proposal will come again; an adopted root may make a tree
  // that found none of its own go on.
  bool Finished() const override;
  nlohmann::json Summary() const override;

  // Every node, in the order made.
  const std::vector<Node>& nodes() const { return nodes_; }
  // The node the next expansion would take (an index), or -1 when none is
  // expandable.
  int ChooseNode() const;

 private:
  // A proposal waiting for room, with the node it makes or expands.
  struct Queued {
    Proposal proposal;
    int node;
  };
  std::optional<Queued> Next();
  Queued RootTurn();
  Queued IdeasCall(int node);
  Proposal Implement(int node) const;
  void ObserveKernel(const AttemptResult& r, Node& node);
  void ObserveIdeas(const AttemptResult& r, int node);
  bool HasRoot() const;
  // A node's own reward: ln(gain) in [0, 1].
  static double Reward(const Node& n);
  // The node as a bandit arm: the mean of its and its finished children's
  // rewards, and how many there are.
  BanditArm ArmOf(const Node& n) const;
  // Measurably slower than its parent (above); a node without one is
  // compared with 1.
  bool SlowerThanParent(const Node& n) const;
  bool Expandable(const Node& n) const;
  // The normalised ideas a new idea for `node` must not repeat.
  std::vector<std::string> Known(int node) const;
  IdeaHistory History(int node) const;
  int RootOf(int node) const;
  Proposal Base(const std::string& kind, const std::string& user) const;

  StrategyContext context_;
  TreeOptions options_;
  std::vector<Node> nodes_;
  std::deque<Queued> queued_;           // implementations of the last expansion's ideas
  std::map<int, int> node_of_;          // attempt id -> node index
  std::map<int, int> expanding_;        // id of a call for ideas -> the node it expands
  std::vector<ChatMessage> root_chat_;  // the root chain's history
  int outstanding_ = 0;                 // proposed, not yet observed
  int root_turns_ = 0, expansions_ = 0;
};

}  // namespace hone
