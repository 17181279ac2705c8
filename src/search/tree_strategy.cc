#include "search/tree_strategy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/speedup_gain.h"
#include "search/bandit.h"
#include "search/idea_list.h"
#include "store/candidate_kind.h"

namespace hone {
namespace {

// A reply may hold more ideas than asked for, some of them repeats: read
// this many times `ideas` before dropping the known ones.
constexpr size_t kIdeasRead = 3;
// Earlier root attempts (reply + feedback) kept in the root chain's prompt.
constexpr size_t kRootExchangesKept = 2;
// Ideas that failed elsewhere listed in a call for ideas, the latest.
constexpr size_t kFailedIdeasListed = 30;
constexpr size_t kReasonChars = 200;

std::string OneLine(std::string text, size_t cap = kReasonChars) {
  text = text.substr(0, text.find('\n'));
  if (text.size() > cap) text = text.substr(0, cap - 3) + "...";
  return text;
}

// Why an attempt did not pass, on one line.
std::string FailureOf(const AttemptResult& r) {
  if (!r.reply.ok) return "the LLM call failed: " + OneLine(r.reply.error);
  if (!r.verdict) {
    const Extraction& e = r.extraction;
    return "no usable code in the reply (" +
           (e.detail.empty() ? ExtractFailureName(e.failure) : OneLine(e.detail)) + ")";
  }
  std::string why = OneLine(r.verdict->reason);
  return std::string(StatusName(r.verdict->status)) + (why.empty() ? "" : ": " + why);
}

// The first user turn and the latest exchanges.
std::vector<ChatMessage> Window(const std::vector<ChatMessage>& chat) {
  const size_t keep = 1 + 2 * kRootExchangesKept;
  if (chat.size() <= keep) return chat;
  std::vector<ChatMessage> out = {chat.front()};
  out.insert(out.end(), chat.end() - static_cast<std::ptrdiff_t>(keep - 1), chat.end());
  return out;
}

}  // namespace

const StrategySpec& TreeStrategy::Spec() {
  static const StrategySpec spec{
      .name = "tree",
      .params = {IntParam("ideas", "--ideas", "ideas asked for per expansion", 3, 1),
                 IntParam("expansions", "--expansions", "calls for ideas in all", 4, 1),
                 IntParam("depth", "--depth", "nodes this deep are not expanded", 3, 1),
                 IntParam("roots", "--roots", "attempts at a first passing kernel", 3, 1)},
      .make = [](const StrategyParams& p,
                 const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        return std::make_unique<TreeStrategy>(
            c, TreeOptions{p.Int("ideas"), p.Int("expansions"), p.Int("depth"), p.Int("roots")});
      },
      // Every call may be a call for ideas.
      .size_for = [](StrategyParams& p, int calls) { p.Set("expansions", calls); },
  };
  return spec;
}

TreeStrategy::TreeStrategy(StrategyContext context, TreeOptions options)
    : context_(std::move(context)), options_(options) {
  root_chat_ = {
      {"user", context_.prompts->FirstTurn(*context_.task, *context_.language, context_.machine,
                                           context_.reference, context_.lessons)}};
}

Proposal TreeStrategy::Base(const std::string& kind, const std::string& user) const {
  Proposal p;
  p.kind = kind;
  p.system = context_.prompts->System(*context_.language);
  p.messages = {{"user", user}};
  return p;
}

bool TreeStrategy::HasRoot() const {
  return std::any_of(nodes_.begin(), nodes_.end(),
                     [](const Node& n) { return n.parent < 0 && n.state == NodeState::kPassed; });
}

int TreeStrategy::RootOf(int node) const {
  while (nodes_[static_cast<size_t>(node)].parent >= 0)
    node = nodes_[static_cast<size_t>(node)].parent;
  return node;
}

bool TreeStrategy::SlowerThanParent(const Node& n) const {
  if (n.gain * (1 + kGainNoiseFloor) >= 1.0) return false;
  if (n.parent < 0) return true;
  // Both timed with an interval: slower only when the intervals are apart.
  const Verdict& mine = n.kernel.verdict;
  const Verdict& parent = nodes_[static_cast<size_t>(n.parent)].kernel.verdict;
  if (mine.timing.speedup_high <= 0 || parent.timing.speedup_low <= 0) return true;
  return mine.timing.speedup_high < parent.timing.speedup_low;
}

bool TreeStrategy::Expandable(const Node& n) const {
  return n.state == NodeState::kPassed && n.depth < options_.depth && !n.exhausted &&
         !SlowerThanParent(n);
}

double TreeStrategy::Reward(const Node& n) {
  // A gain under the noise floor is timing noise, as for auto's arms.
  return n.gain > 1 + kGainNoiseFloor ? std::min(1.0, std::log(n.gain)) : 0.0;
}

BanditArm TreeStrategy::ArmOf(const Node& n) const {
  double sum = Reward(n);
  int samples = 1 + n.fruitless;
  for (int c : n.children) {
    const Node& child = nodes_[static_cast<size_t>(c)];
    if (child.state == NodeState::kWaiting) continue;
    sum += child.state == NodeState::kPassed ? Reward(child) : 0.0;
    ++samples;
  }
  return {sum / samples, samples, true};
}

int TreeStrategy::ChooseNode() const {
  std::vector<int> open;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (Expandable(nodes_[i])) open.push_back(static_cast<int>(i));
  // The faster kernel first, so that it wins a tie (ChooseUcb takes the first).
  std::stable_sort(open.begin(), open.end(), [&](int a, int b) {
    return nodes_[static_cast<size_t>(a)].speedup > nodes_[static_cast<size_t>(b)].speedup;
  });
  std::vector<BanditArm> arms;
  for (int i : open) arms.push_back(ArmOf(nodes_[static_cast<size_t>(i)]));
  int chosen = ChooseUcb(arms, kTreeExploration);
  return chosen < 0 ? -1 : open[static_cast<size_t>(chosen)];
}

TreeStrategy::Queued TreeStrategy::RootTurn() {
  Proposal p = Base(kRootKind, "");
  p.messages = Window(root_chat_);
  p.turn = root_turns_++;
  // Until a root passes, every node is a failed root attempt: the last one's
  // feedback is what this one sees.
  if (!nodes_.empty()) p.parents = {nodes_.back().attempt};
  nodes_.emplace_back();
  return {std::move(p), static_cast<int>(nodes_.size()) - 1};
}

std::vector<std::string> TreeStrategy::Known(int node) const {
  std::vector<std::string> known;
  for (int i = node; i >= 0; i = nodes_[static_cast<size_t>(i)].parent)
    known.push_back(NormalizeIdea(nodes_[static_cast<size_t>(i)].idea));
  for (int c : nodes_[static_cast<size_t>(node)].children)
    known.push_back(NormalizeIdea(nodes_[static_cast<size_t>(c)].idea));
  for (const Node& n : nodes_)
    if (n.state == NodeState::kFailed && !n.idea.empty()) known.push_back(NormalizeIdea(n.idea));
  return known;
}

IdeaHistory TreeStrategy::History(int node) const {
  IdeaHistory h;
  for (int i = node; i >= 0; i = nodes_[static_cast<size_t>(i)].parent)
    if (!nodes_[static_cast<size_t>(i)].idea.empty())
      h.applied.insert(h.applied.begin(), nodes_[static_cast<size_t>(i)].idea);
  const Node& here = nodes_[static_cast<size_t>(node)];
  for (int c : here.children) {
    const Node& child = nodes_[static_cast<size_t>(c)];
    h.tried.push_back(child.idea + " -- " +
                      (child.state == NodeState::kPassed
                           ? fmt::format("passed, {:.2f}x the speed of this kernel", child.gain)
                           : "failed: " + child.failure));
  }
  std::vector<std::string> elsewhere;
  for (const Node& n : nodes_)
    if (n.state == NodeState::kFailed && !n.idea.empty() && n.parent != node)
      elsewhere.push_back(n.idea + " -- failed on another kernel: " + n.failure);
  size_t skip = elsewhere.size() > kFailedIdeasListed ? elsewhere.size() - kFailedIdeasListed : 0;
  h.tried.insert(h.tried.end(), elsewhere.begin() + static_cast<std::ptrdiff_t>(skip),
                 elsewhere.end());
  return h;
}

TreeStrategy::Queued TreeStrategy::IdeasCall(int node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  Proposal p =
      Base(kIdeasKind, context_.prompts->IdeasTurn(
                           *context_.task, *context_.language, context_.machine, n.kernel,
                           History(node), options_.ideas, context_.reference, context_.lessons));
  p.wants_code = false;
  p.parents = {n.attempt};
  p.lineage = RootOf(node);
  p.turn = n.depth;
  ++n.expansions;
  ++expansions_;
  return {std::move(p), node};
}

Proposal TreeStrategy::Implement(int node) const {
  const Node& child = nodes_[static_cast<size_t>(node)];
  const Node& parent = nodes_[static_cast<size_t>(child.parent)];
  Proposal p =
      Base(kIdeaKind, context_.prompts->IdeaTurn(*context_.task, *context_.language,
                                                 context_.machine, parent.kernel, child.idea,
                                                 context_.reference, context_.lessons));
  p.label = child.idea;
  p.parents = {parent.attempt};
  p.lineage = RootOf(node);
  p.turn = child.depth;
  return p;
}

std::optional<TreeStrategy::Queued> TreeStrategy::Next() {
  if (!queued_.empty()) {
    Queued q = std::move(queued_.front());
    queued_.pop_front();
    return q;
  }
  if (outstanding_ > 0) return std::nullopt;  // the next choice needs every result in
  if (!HasRoot()) {
    if (root_turns_ >= options_.roots) return std::nullopt;
    return RootTurn();
  }
  if (expansions_ >= options_.expansions) return std::nullopt;
  int node = ChooseNode();
  if (node < 0) return std::nullopt;
  return IdeasCall(node);
}

std::vector<Proposal> TreeStrategy::Propose(int max, int* next_id) {
  std::vector<Proposal> out;
  while (static_cast<int>(out.size()) < max) {
    std::optional<Queued> q = Next();
    if (!q) break;
    q->proposal.id = (*next_id)++;
    if (q->proposal.wants_code) {
      nodes_[static_cast<size_t>(q->node)].attempt = q->proposal.id;
      node_of_[q->proposal.id] = q->node;
    } else {
      expanding_[q->proposal.id] = q->node;
    }
    ++outstanding_;
    out.push_back(std::move(q->proposal));
  }
  return out;
}

void TreeStrategy::ObserveKernel(const AttemptResult& r, Node& n) {
  if (r.passed()) {
    n.state = NodeState::kPassed;
    n.kernel = {r.extraction.code, *r.verdict};
    n.speedup = r.speedup();
    const double before = n.parent < 0 ? 0 : nodes_[static_cast<size_t>(n.parent)].speedup;
    n.gain = before > 0 ? n.speedup / before : 1.0;
  } else {
    n.state = NodeState::kFailed;
    n.failure = FailureOf(r);
  }
}

void TreeStrategy::ObserveIdeas(const AttemptResult& r, int node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  if (!r.reply.ok) {
    ++n.fruitless;
    n.expansion_note = "the call for ideas failed: " + OneLine(r.reply.error);
    return;
  }
  std::vector<std::string> known = Known(node);
  std::vector<std::string> fresh;
  const size_t asked = static_cast<size_t>(options_.ideas);
  for (std::string& idea : ParseIdeas(r.reply.text, asked * kIdeasRead)) {
    if (fresh.size() == asked) break;
    std::string key = NormalizeIdea(idea);
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    known.push_back(key);
    fresh.push_back(std::move(idea));
  }
  n.exhausted = fresh.empty();
  n.fruitless += n.exhausted;
  n.expansion_note =
      fresh.empty() ? "the reply held no new idea" : fmt::format("{} new idea(s)", fresh.size());
  const int depth = n.depth + 1;  // `n` dangles once children are added
  for (std::string& idea : fresh) {
    Node child;
    child.parent = node;
    child.depth = depth;
    child.idea = std::move(idea);
    nodes_.push_back(std::move(child));
    const int index = static_cast<int>(nodes_.size()) - 1;
    nodes_[static_cast<size_t>(node)].children.push_back(index);
    queued_.push_back({Implement(index), index});
  }
}

void TreeStrategy::Observe(const AttemptResult& r) {
  const int id = r.proposal.id;
  if (auto it = expanding_.find(id); it != expanding_.end()) {
    --outstanding_;
    ObserveIdeas(r, it->second);
    return;
  }
  auto it = node_of_.find(id);
  // Not this strategy's proposal (an adopted root is another's).
  if (it == node_of_.end() || nodes_[static_cast<size_t>(it->second)].adopted) return;
  --outstanding_;
  Node& n = nodes_[static_cast<size_t>(it->second)];
  ObserveKernel(r, n);
  if (n.parent >= 0) return;
  // A root attempt: the next one (if any is needed) sees what came of it.
  if (!r.reply.ok) return;
  root_chat_.push_back({"assistant", r.reply.text});
  root_chat_.push_back({"user", r.verdict ? context_.prompts->FeedbackTurn(*r.verdict)
                                          : context_.prompts->ExtractionFailedTurn(r.extraction)});
}

void TreeStrategy::ObserveElsewhere(const AttemptResult& r) {
  if (!r.passed() || node_of_.count(r.proposal.id)) return;
  double fastest = 0;
  for (const Node& n : nodes_)
    if (n.state == NodeState::kPassed) fastest = std::max(fastest, n.speedup);
  if (HasRoot() && r.speedup() <= fastest) return;
  Node n;
  n.attempt = r.proposal.id;
  n.adopted = true;
  n.state = NodeState::kPassed;
  n.kernel = {r.extraction.code, *r.verdict};
  n.speedup = r.speedup();
  n.gain = fastest > 0 ? n.speedup / fastest : 1.0;
  nodes_.push_back(std::move(n));
  node_of_[r.proposal.id] = static_cast<int>(nodes_.size()) - 1;
}

bool TreeStrategy::Finished() const {
  if (outstanding_ > 0 || !queued_.empty()) return false;
  if (!HasRoot()) return root_turns_ >= options_.roots;
  return expansions_ >= options_.expansions || ChooseNode() < 0;
}

nlohmann::json TreeStrategy::Summary() const {
  int passed = 0, failed = 0, ideas = 0;
  int best = -1;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    ideas += !n.idea.empty();
    passed += n.state == NodeState::kPassed;
    failed += n.state == NodeState::kFailed;
    if (n.state == NodeState::kPassed &&
        (best < 0 || n.speedup > nodes_[static_cast<size_t>(best)].speedup))
      best = static_cast<int>(i);
  }
  nlohmann::json j = {{"nodes", nodes_.size()},    {"ideas", ideas},
                      {"passed", passed},          {"failed", failed},
                      {"expansions", expansions_}, {"best", nullptr}};
  if (best >= 0) {
    const Node& b = nodes_[static_cast<size_t>(best)];
    j["best"] = {{"id", b.attempt}, {"speedup", b.speedup}, {"depth", b.depth}, {"idea", b.idea}};
  }
  return j;
}

}  // namespace hone
