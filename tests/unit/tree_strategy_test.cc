// The tree strategy against scripted results (no LLM, no evaluation): it
// expands the node with the best measured gain, keeps failed ideas with
// their reason so they are shown and never proposed again, and makes the
// same proposals whatever order concurrent results arrive in.
#include "search/tree_strategy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "store/candidate_kind.h"
#include "support/builtin_tasks.h"
#include "support/source_dir.h"
#include "task/task_loader.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

using testing::SourceDir;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

const std::string& UserText(const Proposal& p) { return p.messages.back().text; }

AttemptResult Replied(const Proposal& p, const std::string& text) {
  AttemptResult r;
  r.proposal = p;
  r.reply.ok = true;
  r.reply.text = text;
  return r;
}

AttemptResult Passed(const Proposal& p, double speedup) {
  AttemptResult r = Replied(p, "```cpp\n// kernel " + std::to_string(p.id) + "\n```");
  r.extraction.code = "// kernel " + std::to_string(p.id) + "\n";
  Verdict v;
  v.status = VerdictStatus::kPassed;
  v.reason = "all checks passed";
  v.timing.speedup = speedup;
  r.verdict = v;
  return r;
}

AttemptResult Failed(const Proposal& p, VerdictStatus status, const std::string& reason) {
  AttemptResult r = Passed(p, 0);
  r.verdict->status = status;
  r.verdict->reason = reason;
  return r;
}

AttemptResult NoCode(const Proposal& p) {
  AttemptResult r = Replied(p, "I cannot.");
  r.extraction.failure = ExtractFailure::kNoCode;
  r.extraction.detail = "no code block in the reply";
  return r;
}

AttemptResult CallFailed(const Proposal& p) {
  AttemptResult r;
  r.proposal = p;
  r.reply.ok = false;
  r.reply.error = "HTTP 529: overloaded";
  return r;
}

std::string IdeasReply(const std::vector<std::string>& ideas) {
  std::string out = "Here are my ideas.\n\n```ideas\n";
  for (size_t i = 0; i < ideas.size(); ++i) out += std::to_string(i + 1) + ". " + ideas[i] + "\n";
  return out + "```\n";
}

class TreeStrategyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b =
        PromptBuilder::Load(SourceDir() / "prompts", SourceDir() / "include", BuiltInLanguages());
    ASSERT_TRUE(b.ok()) << b.status().message();
    prompts_ = std::make_unique<PromptBuilder>(std::move(b).value());
    auto t = hone::testing::LoadBuiltInTask(SourceDir() / "tasks" / "examples" / "gelu");
    ASSERT_TRUE(t.ok()) << t.status().message();
    task_ = std::move(t).value();
    context_.task = &task_;
    context_.language = BuiltInLanguages().Find("cpp");
    context_.machine.kind = "cpu";
    context_.prompts = prompts_.get();
  }

  std::unique_ptr<TreeStrategy> Make(TreeOptions o) {
    return std::make_unique<TreeStrategy>(context_, o);
  }

  std::vector<Proposal> Propose(TreeStrategy& t, int max = 8) { return t.Propose(max, &next_id_); }

  // One proposal, which must come.
  Proposal One(TreeStrategy& t) {
    auto ps = Propose(t, 1);
    EXPECT_EQ(ps.size(), 1u);
    return ps.empty() ? Proposal{} : ps.front();
  }

  // A passed root, then a call for ideas on it answered with `ideas`: the
  // implementations asked for, in order.
  std::vector<Proposal> RootWithIdeas(TreeStrategy& t, const std::vector<std::string>& ideas) {
    Proposal root = One(t);
    EXPECT_EQ(root.kind, kRootKind);
    t.Observe(Passed(root, 1.0));
    Proposal call = One(t);
    EXPECT_EQ(call.kind, kIdeasKind);
    EXPECT_FALSE(call.wants_code);
    EXPECT_EQ(call.parents, std::vector<int>{root.id});
    t.Observe(Replied(call, IdeasReply(ideas)));
    return Propose(t);
  }

  Task task_;
  std::unique_ptr<PromptBuilder> prompts_;
  StrategyContext context_;
  int next_id_ = 0;
};

TEST_F(TreeStrategyTest, ExpandsTheNodeWithTheBestMeasuredGain) {
  auto tree = Make({3, 4, 3, 2});
  std::vector<Proposal> children =
      RootWithIdeas(*tree, {"Vectorise the loop", "Split rows over cores", "Fuse the passes"});
  ASSERT_EQ(children.size(), 3u);
  for (const Proposal& c : children) {
    EXPECT_EQ(c.kind, kIdeaKind);
    EXPECT_EQ(c.parents, std::vector<int>{0}) << "every idea changes the root's kernel";
    EXPECT_TRUE(Contains(UserText(c), c.label)) << "the prompt names the idea to apply";
  }
  EXPECT_EQ(children[1].label, "Split rows over cores");
  EXPECT_TRUE(Propose(*tree).empty()) << "the next choice waits for every child's result";
  // Out of order; the middle idea gained most.
  tree->Observe(Passed(children[2], 1.2));
  EXPECT_TRUE(Propose(*tree).empty());
  tree->Observe(Passed(children[0], 1.1));
  tree->Observe(Passed(children[1], 1.5));

  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(tree->nodes()[i].depth, 1);
  Proposal next = One(*tree);
  EXPECT_EQ(next.kind, kIdeasKind);
  EXPECT_EQ(next.parents, std::vector<int>{children[1].id}) << "the best-gaining node is expanded";
  EXPECT_TRUE(Contains(UserText(next), "// kernel " + std::to_string(children[1].id)));
  EXPECT_TRUE(Contains(UserText(next), "- Split rows over cores")) << "applied on the way";

  // Its children gain little: one is now the fastest kernel, but by 5% only.
  // The sibling with the next best gain goes next, not the fastest kernel.
  next_id_ = 100;
  tree->Observe(Replied(next, IdeasReply({"Unroll by four", "Prefetch"})));
  auto grandchildren = Propose(*tree);
  ASSERT_EQ(grandchildren.size(), 2u);
  tree->Observe(Passed(grandchildren[0], 1.5 * 1.05));
  tree->Observe(Failed(grandchildren[1], VerdictStatus::kIncorrect, "max error 3 at [5]"));
  Proposal third = One(*tree);
  EXPECT_EQ(third.parents, std::vector<int>{children[2].id});
}

TEST_F(TreeStrategyTest, FailedIdeasKeepTheirReasonAndAreNotProposedAgain) {
  auto tree = Make({3, 4, 3, 2});
  auto children = RootWithIdeas(*tree, {"Use AVX2", "Block for the cache", "Use OpenMP"});
  ASSERT_EQ(children.size(), 3u);
  tree->Observe(Failed(children[0], VerdictStatus::kCompileError, "x.cpp:3: error: expected ';'"));
  tree->Observe(Passed(children[1], 1.3));
  tree->Observe(NoCode(children[2]));

  const auto& nodes = tree->nodes();
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[1].state, TreeStrategy::NodeState::kFailed);
  EXPECT_EQ(nodes[1].failure, "compile_error: x.cpp:3: error: expected ';'");
  EXPECT_EQ(nodes[3].failure, "no usable code in the reply (no code block in the reply)");

  Proposal call = One(*tree);
  ASSERT_EQ(call.parents, std::vector<int>{children[1].id});
  const std::string& prompt = UserText(call);
  EXPECT_TRUE(Contains(prompt,
                       "- Use AVX2 -- failed on another kernel: compile_error: x.cpp:3: "
                       "error: expected ';'"))
      << prompt;
  EXPECT_TRUE(Contains(prompt, "- Use OpenMP -- failed on another kernel: no usable code"));
  EXPECT_TRUE(Contains(prompt, "Propose 3 distinct ideas"));

  // The model repeats a failed idea (in other words' case), the idea already
  // applied, and has one new one: only the new one is implemented.
  tree->Observe(Replied(call, IdeasReply({"use avx2!", "Block for the cache.", "Unroll by 4"})));
  auto next = Propose(*tree);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].label, "Unroll by 4");
  EXPECT_EQ(next[0].parents, std::vector<int>{children[1].id});

  // Tried on this node, it is listed with its outcome the next time.
  tree->Observe(Passed(next[0], 1.3 * 1.5));
  Proposal deeper = One(*tree);
  EXPECT_EQ(deeper.parents, std::vector<int>{next[0].id});
  EXPECT_TRUE(Contains(UserText(deeper), "- Block for the cache\n- Unroll by 4"))
      << "the ideas applied on the way, in order";
}

TEST_F(TreeStrategyTest, RootAttemptsSeeTheLastFeedbackAndStopAfterRoots) {
  auto tree = Make({3, 4, 3, 2});
  Proposal first = One(*tree);
  EXPECT_TRUE(Propose(*tree).empty());
  tree->Observe(Failed(first, VerdictStatus::kCompileError, "x.cpp:1: error: no"));
  Proposal second = One(*tree);
  EXPECT_EQ(second.kind, kRootKind);
  EXPECT_EQ(second.parents, std::vector<int>{first.id});
  ASSERT_EQ(second.messages.size(), 3u) << "first turn, reply, feedback";
  EXPECT_TRUE(Contains(second.messages[2].text, "compile_error"));
  tree->Observe(CallFailed(second));
  EXPECT_TRUE(Propose(*tree).empty());
  EXPECT_TRUE(tree->Finished()) << "two roots tried, none passed: nothing to expand";
  EXPECT_EQ(tree->nodes()[1].failure, "the LLM call failed: HTTP 529: overloaded");
}

TEST_F(TreeStrategyTest, ANodeWithNoNewIdeasIsNotExpandedAgain) {
  auto tree = Make({2, 5, 3, 1});
  auto children = RootWithIdeas(*tree, {"A", "B"});
  ASSERT_EQ(children.size(), 2u);
  tree->Observe(Passed(children[0], 0.8));  // slower than the root: not expanded
  tree->Observe(Failed(children[1], VerdictStatus::kIncorrect, "wrong"));
  Proposal again = One(*tree);
  EXPECT_EQ(again.parents, std::vector<int>{0}) << "only the root is expandable";
  tree->Observe(Replied(again, IdeasReply({"a", "b."})));  // both known
  EXPECT_TRUE(Propose(*tree).empty());
  EXPECT_TRUE(tree->Finished());
  EXPECT_TRUE(tree->nodes()[0].exhausted);
  EXPECT_EQ(tree->nodes()[0].expansion_note, "the reply held no new idea");
}

// An idea that changed nothing is measured on either side of its parent by
// chance; whichever side, it stays expandable. Only a kernel measurably
// slower (beyond the noise floor, and with the speedup intervals apart when
// both have one) is not expanded.
TEST_F(TreeStrategyTest, OnlyAMeasurablySlowerNodeIsNotExpanded) {
  auto Within = [](AttemptResult r, double low, double high) {
    r.verdict->timing.speedup_low = low;
    r.verdict->timing.speedup_high = high;
    return r;
  };
  // The root passes at 1.0 within `root_ci`; of ideas A and B, B fails and
  // A passes as `a`: the node the second call for ideas expands.
  auto SecondExpansion = [&](std::pair<double, double> root_ci, const AttemptResult& a_template) {
    auto tree = Make({2, 4, 3, 1});
    Proposal root = One(*tree);
    tree->Observe(Within(Passed(root, 1.0), root_ci.first, root_ci.second));
    Proposal call = One(*tree);
    tree->Observe(Replied(call, IdeasReply({"A", "B"})));
    auto children = Propose(*tree);
    EXPECT_EQ(children.size(), 2u);
    if (children.size() != 2u) return -1;
    AttemptResult a = a_template;
    a.proposal = children[0];
    tree->Observe(a);
    tree->Observe(Failed(children[1], VerdictStatus::kIncorrect, "wrong"));
    Proposal next = One(*tree);
    EXPECT_EQ(next.kind, kIdeasKind);
    return next.parents.empty() ? -1 : next.parents.front() == children[0].id ? 1 : 0;
  };
  Proposal any;
  EXPECT_EQ(SecondExpansion({0, 0}, Passed(any, 0.99)), 1) << "1% slower: timing noise";
  EXPECT_EQ(SecondExpansion({0, 0}, Passed(any, 0.9)), 0) << "10% slower, no intervals";
  EXPECT_EQ(SecondExpansion({0.9, 1.1}, Within(Passed(any, 0.9), 0.8, 1.0)), 1)
      << "10% slower, but within the root's interval";
  EXPECT_EQ(SecondExpansion({0.95, 1.05}, Within(Passed(any, 0.9), 0.85, 0.94)), 0)
      << "10% slower with the intervals apart";
}

TEST_F(TreeStrategyTest, AFailedCallForIdeasSpendsAnExpansionOnly) {
  auto tree = Make({2, 2, 3, 1});
  Proposal root = One(*tree);
  tree->Observe(Passed(root, 2.0));
  Proposal call = One(*tree);
  tree->Observe(CallFailed(call));
  Proposal retry = One(*tree);
  EXPECT_EQ(retry.kind, kIdeasKind);
  EXPECT_EQ(retry.parents, std::vector<int>{root.id});
  tree->Observe(Replied(retry, "no list here, sorry:"));
  EXPECT_TRUE(tree->Finished()) << "--expansions 2 spent";
  EXPECT_EQ(tree->Summary()["expansions"], 2);
}

TEST_F(TreeStrategyTest, StartsFromAFasterKernelFoundElsewhere) {
  auto tree = Make({2, 4, 3, 3});
  Proposal other;
  other.id = 41;
  other.kind = "sample";
  tree->ObserveElsewhere(Passed(other, 1.7));
  Proposal call = One(*tree);
  EXPECT_EQ(call.kind, kIdeasKind) << "no root attempt of its own is needed";
  EXPECT_EQ(call.parents, std::vector<int>{41});
  EXPECT_TRUE(Contains(UserText(call), "// kernel 41"));
  Proposal slower;
  slower.id = 42;
  tree->ObserveElsewhere(Passed(slower, 1.2));
  EXPECT_EQ(tree->nodes().size(), 1u) << "a slower kernel is not adopted";
}

// Scripted results as a function of the proposal alone, so two drives can
// deliver them in different orders.
AttemptResult Script(const Proposal& p, int depth_of_parent) {
  if (p.kind == kRootKind) return Passed(p, 1.0);
  if (p.kind == kIdeasKind) {
    std::string d = std::to_string(depth_of_parent);
    return Replied(p, IdeasReply({"idea " + d + "a", "idea " + d + "b", "idea " + d + "c"}));
  }
  if (p.label.ends_with("b")) return Failed(p, VerdictStatus::kIncorrect, "wrong");
  double speedup = 1.0 + 0.1 * static_cast<double>(p.label.size() + (p.label.back() - 'a'));
  return Passed(p, speedup);
}

// Every proposal's kind, label, parents and prompt, driving with `room`
// proposals at a time and observing each batch in reverse when asked.
std::vector<std::string> Drive(TreeStrategy& tree, int room, bool reverse) {
  std::vector<std::string> trace;
  std::map<int, int> depth;  // attempt id -> depth of its node
  int next_id = 0;
  for (int guard = 0; guard < 200 && !tree.Finished(); ++guard) {
    std::vector<Proposal> batch = tree.Propose(room, &next_id);
    std::vector<AttemptResult> results;
    for (const Proposal& p : batch) {
      std::string parents;
      for (int q : p.parents) parents += std::to_string(q) + ",";
      trace.push_back(p.kind + "|" + p.label + "|" + parents + "|" + UserText(p));
      int parent_depth = p.parents.empty() ? 0 : depth[p.parents.front()];
      depth[p.id] = p.kind == kIdeaKind ? parent_depth + 1 : 0;
      results.push_back(Script(p, parent_depth));
    }
    if (reverse) std::reverse(results.begin(), results.end());
    for (const AttemptResult& r : results) tree.Observe(r);
  }
  return trace;
}

TEST_F(TreeStrategyTest, TheSameResultsInAnotherOrderMakeTheSameProposals) {
  auto one = Make({3, 4, 3, 2});
  auto other = Make({3, 4, 3, 2});
  std::vector<std::string> a = Drive(*one, 1, false), b = Drive(*other, 8, true);
  EXPECT_GE(a.size(), 10u);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace hone
