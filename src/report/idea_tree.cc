#include "report/idea_tree.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "report/run_summary_text.h"
#include "store/candidate_kind.h"

namespace hone {
namespace {

using json = nlohmann::json;

constexpr size_t kIdeaChars = 90;      // an idea in the text tree
constexpr size_t kFailureChars = 100;  // a failure's first line

bool Is(const AttemptView& a, const char* kind) { return OwnKind(a.candidate.kind) == kind; }

std::optional<int> FirstParent(const AttemptView& a) {
  if (a.candidate.parents.empty()) return std::nullopt;
  return a.candidate.parents.front();
}

// The seqs of the task's attempts that are nodes, each with its attempt.
std::map<int, size_t> NodeSeqs(const RunData& run, const std::string& task_hash) {
  std::map<int, size_t> attempt_of;
  for (size_t i = 0; i < run.attempts.size(); ++i)
    if (run.attempts[i].candidate.task_hash == task_hash)
      attempt_of[run.attempts[i].candidate.seq] = i;
  std::set<int> seqs;
  auto add_parent = [&](const AttemptView& a) {
    if (auto p = FirstParent(a); p && attempt_of.count(*p)) seqs.insert(*p);
  };
  for (const auto& [seq, i] : attempt_of) {
    const AttemptView& a = run.attempts[i];
    if (Is(a, kRootKind) || Is(a, kIdeaKind)) seqs.insert(seq);
    if (Is(a, kIdeaKind)) add_parent(a);
  }
  for (const AttemptView& p : run.planning)
    if (p.candidate.task_hash == task_hash) add_parent(p);
  std::map<int, size_t> out;
  for (int seq : seqs) out[seq] = attempt_of[seq];
  return out;
}

std::optional<double> SpeedupOf(const AttemptView& a) {
  if (!a.passed() || !a.evaluation->speedup || *a.evaluation->speedup <= 0) return std::nullopt;
  return a.evaluation->speedup;
}

void Count(IdeaTree& t, const AttemptView& a) {
  ++t.ideas;
  if (a.passed())
    ++t.passed;
  else if (a.outcome != "pending" && a.outcome != "not_evaluated")
    ++t.failed;
}

// "#2 vectorise the loop" for an idea, "#0 root", "#5 (evolve:mutate)" for
// a root taken from another strategy.
std::string NodeName(const AttemptView& a) {
  const CandidateRow& c = a.candidate;
  if (Is(a, kIdeaKind)) return fmt::format("#{} {}", c.seq, FirstLine(c.label, kIdeaChars));
  if (Is(a, kRootKind)) return fmt::format("#{} root", c.seq);
  return fmt::format("#{} ({})", c.seq, c.kind);
}

std::string OutcomeText(const AttemptView& a, const IdeaNode& n) {
  if (a.passed()) {
    std::string out = "passed " + FormatSpeedup(a.evaluation->speedup);
    if (n.gain) out += fmt::format(" ({:.2f}x its parent)", *n.gain);
    return out;
  }
  std::string why = FirstLine(AttemptReason(a), kFailureChars);
  return a.outcome + (why.empty() ? "" : ": " + why);
}

void NodeLines(const RunData& run, const IdeaTree& t, size_t node, std::string& out) {
  const IdeaNode& n = t.nodes[node];
  const AttemptView& a = run.attempts[n.attempt];
  out += fmt::format("  {:{}}{}: {}{}\n", "", 2 * n.depth, NodeName(a), OutcomeText(a, n),
                     n.expansions ? fmt::format(", expanded {}x", n.expansions) : "");
  for (size_t c : n.children) NodeLines(run, t, c, out);
}

json NodeJson(const RunData& run, const IdeaTree& t, size_t node) {
  const IdeaNode& n = t.nodes[node];
  const AttemptView& a = run.attempts[n.attempt];
  json children = json::array();
  for (size_t c : n.children) children.push_back(NodeJson(run, t, c));
  auto speedup = SpeedupOf(a);
  return {{"seq", a.candidate.seq},
          {"kind", a.candidate.kind},
          {"idea", a.candidate.label},
          {"outcome", a.outcome},
          {"speedup", speedup ? json(*speedup) : json(nullptr)},
          {"gain", n.gain ? json(*n.gain) : json(nullptr)},
          {"reason", a.passed() ? "" : FirstLine(AttemptReason(a), 400)},
          {"expansions", n.expansions},
          {"children", children}};
}

}  // namespace

IdeaTree BuildIdeaTree(const RunData& run, const std::string& task_hash) {
  IdeaTree t;
  std::map<int, size_t> node_of;  // seq -> node
  for (const auto& [seq, attempt] : NodeSeqs(run, task_hash)) {
    node_of[seq] = t.nodes.size();
    t.nodes.push_back({attempt, std::nullopt, {}, 0, 0, std::nullopt});
  }
  // Parents come before their children in seq order: depths in one pass.
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    IdeaNode& n = t.nodes[i];
    const AttemptView& a = run.attempts[n.attempt];
    auto parent = Is(a, kIdeaKind) ? FirstParent(a) : std::nullopt;
    if (parent && node_of.count(*parent)) {
      n.parent = node_of[*parent];
      IdeaNode& p = t.nodes[*n.parent];
      p.children.push_back(i);
      n.depth = p.depth + 1;
      auto mine = SpeedupOf(a), theirs = SpeedupOf(run.attempts[p.attempt]);
      if (mine && theirs) n.gain = *mine / *theirs;
    } else {
      t.roots.push_back(i);
    }
    if (Is(a, kIdeaKind)) Count(t, a);
  }
  for (const AttemptView& call : run.planning) {
    if (call.candidate.task_hash != task_hash) continue;
    auto parent = FirstParent(call);
    if (!parent || !node_of.count(*parent)) continue;
    ++t.nodes[node_of[*parent]].expansions;
    ++t.expansions;
  }
  return t;
}

std::string IdeaTreeText(const RunData& run, const IdeaTree& t) {
  std::string out = fmt::format(
      "idea tree: {} root(s), {} idea(s) ({} passed, {} failed), {} call(s) for ideas\n",
      t.roots.size(), t.ideas, t.passed, t.failed, t.expansions);
  for (size_t r : t.roots) NodeLines(run, t, r, out);
  return out;
}

json IdeaTreeJson(const RunData& run, const IdeaTree& t) {
  json roots = json::array();
  for (size_t r : t.roots) roots.push_back(NodeJson(run, t, r));
  return {{"roots", roots},
          {"ideas", t.ideas},
          {"passed", t.passed},
          {"failed", t.failed},
          {"expansions", t.expansions}};
}

}  // namespace hone
