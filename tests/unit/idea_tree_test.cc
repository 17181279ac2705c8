// The idea tree and the auto strategy's arms as reports read them back from
// a run fabricated through the Store API: calls for ideas are not attempts,
// each idea hangs under the kernel it changed with its outcome, and each
// arm's calls and gains are counted as the bandit counted them.
#include "report/idea_tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "report/arm_summary.h"
#include "report/html_report.h"
#include "report/run_summary_text.h"
#include "store/store.h"

namespace hone {
namespace {

using json = nlohmann::json;

std::string VerdictText(const std::string& status, double speedup, const std::string& reason) {
  json v = {{"status", status}, {"reason", reason}, {"checks", json::array()}};
  if (status == "passed") v["timing"] = {{"speedup", speedup}};
  return v.dump();
}

class IdeaTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-idea-tree-test");
    store_ = std::move(Store::Open(dir_ / "runs.db")).value();
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void NewRun(const std::string& strategy) {
    run_ = *store_->CreateRun("optimize", json({{"strategy", {{"name", strategy}}}}).dump(), "");
    ASSERT_TRUE(store_->PutTask({"h", "vector_add", "tasks/add", "definition"}).ok());
    ASSERT_TRUE(store_->AddRunTask(run_, "h", "", 0).ok());
  }

  // One stored attempt (a call for ideas when `kind` is one): evaluated when
  // `status` is not empty.
  void Add(int seq, const std::string& kind, std::vector<int> parents, const std::string& label,
           const std::string& status = "", double speedup = 0, const std::string& reason = "",
           double cost = 0.01) {
    CandidateRow c;
    c.run_id = run_;
    c.task_hash = "h";
    c.seq = seq;
    c.kind = kind;
    c.label = label;
    c.parents = std::move(parents);
    if (!status.empty()) c.source = "// kernel " + std::to_string(seq);
    LlmCallRow call;
    call.run_id = run_;
    call.ok = true;
    call.input_tokens = 100;
    call.output_tokens = 50;
    call.cost_usd = cost;
    auto id = store_->AddCandidate(c, &call);
    ASSERT_TRUE(id.ok()) << id.status().message();
    if (status.empty()) return;
    auto e = store_->BeginEvaluation(run_, "key" + std::to_string(seq), "h", *id);
    ASSERT_TRUE(e.ok());
    ASSERT_TRUE(store_->FinishEvaluationJson(*e, VerdictText(status, speedup, reason)).ok());
  }

  RunData Load() { return std::move(LoadRunData(*store_, run_)).value(); }

  // A tree run: a root; ideas on it (one passed and gained, one failed);
  // ideas on the one that gained.
  void TreeRun() {
    NewRun("tree");
    Add(0, "root", {}, "", "passed", 1.0);
    Add(1, "ideas", {0}, "");
    Add(2, "idea", {0}, "Vectorise <the> loop", "passed", 1.5);
    Add(3, "idea", {0}, "Use OpenMP", "compile_error", 0, "x.cpp:1: error: no\nmore");
    Add(4, "ideas", {2}, "");
    Add(5, "idea", {2}, "Unroll by four", "passed", 1.8);
  }

  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
  int64_t run_ = 0;
};

TEST_F(IdeaTreeTest, CallsForIdeasAreNotAttempts) {
  TreeRun();
  RunData run = Load();
  EXPECT_EQ(run.attempts.size(), 4u);
  ASSERT_EQ(run.planning.size(), 2u);
  EXPECT_EQ(run.planning[0].outcome, "answered");
  EXPECT_EQ(run.metrics.all.attempts, 4);
  EXPECT_EQ(run.calls.size(), 6u) << "their cost still counts";
}

TEST_F(IdeaTreeTest, EachIdeaHangsUnderTheKernelItChanged) {
  TreeRun();
  RunData run = Load();
  IdeaTree t = BuildIdeaTree(run, "h");
  ASSERT_EQ(t.nodes.size(), 4u);
  ASSERT_EQ(t.roots.size(), 1u);
  const IdeaNode& root = t.nodes[t.roots[0]];
  EXPECT_EQ(root.expansions, 1);
  ASSERT_EQ(root.children.size(), 2u);
  const IdeaNode& vectorised = t.nodes[root.children[0]];
  EXPECT_EQ(vectorised.depth, 1);
  EXPECT_EQ(vectorised.expansions, 1);
  EXPECT_DOUBLE_EQ(*vectorised.gain, 1.5);
  ASSERT_EQ(vectorised.children.size(), 1u);
  EXPECT_DOUBLE_EQ(*t.nodes[vectorised.children[0]].gain, 1.2);
  EXPECT_FALSE(t.nodes[root.children[1]].gain) << "a failed idea has no gain";
  EXPECT_EQ(t.ideas, 3);
  EXPECT_EQ(t.passed, 2);
  EXPECT_EQ(t.failed, 1);
  EXPECT_EQ(t.expansions, 2);

  std::string text = IdeaTreeText(run, t);
  EXPECT_EQ(text,
            "idea tree: 1 root(s), 3 idea(s) (2 passed, 1 failed), 2 call(s) for ideas\n"
            "  #0 root: passed 1.00x, expanded 1x\n"
            "    #2 Vectorise <the> loop: passed 1.50x (1.50x its parent), expanded 1x\n"
            "      #5 Unroll by four: passed 1.80x (1.20x its parent)\n"
            "    #3 Use OpenMP: compile_error: x.cpp:1: error: no\n");
  json j = IdeaTreeJson(run, t);
  EXPECT_EQ(j["roots"][0]["children"][1]["reason"], "x.cpp:1: error: no");
  EXPECT_EQ(j["roots"][0]["children"][0]["idea"], "Vectorise <the> loop");

  // The terminal summary, its JSON and the HTML page show it.
  RunSummary s = SummarizeRun(run);
  EXPECT_NE(RunSummaryText(run, s).find(text), std::string::npos);
  EXPECT_EQ(RunSummaryJson(run, s)["tasks"][0]["idea_tree"], j);
  std::string page = RenderHtmlReport(run, s, "window.Chart = function () {};");
  EXPECT_NE(page.find("<h4>Idea tree</h4>"), std::string::npos);
  EXPECT_NE(page.find("Vectorise &lt;the&gt; loop"), std::string::npos) << "escaped";
  EXPECT_EQ(page.find("Vectorise <the>"), std::string::npos);
}

TEST_F(IdeaTreeTest, ARunWithoutIdeasHasNoTree) {
  NewRun("refine");
  Add(0, "refine", {}, "", "passed", 1.0);
  Add(1, "refine", {0}, "", "passed", 2.0);
  RunData run = Load();
  EXPECT_TRUE(BuildIdeaTree(run, "h").empty());
  EXPECT_EQ(RunSummaryText(run, SummarizeRun(run)).find("idea tree"), std::string::npos);
  EXPECT_TRUE(SummarizeArms(run).empty()) << "not an auto run";
}

TEST_F(IdeaTreeTest, AnAutoRunShowsEachArmAndATreeRootedInAnotherArmsKernel) {
  NewRun("auto");
  Add(0, "sample", {}, "", "passed", 1.0, "", 0.02);
  Add(1, "tree:root", {}, "", "incorrect", 0, "wrong");
  Add(2, "tree:ideas", {0}, "");  // the tree took sample's kernel as its root
  Add(3, "tree:idea", {0}, "Tile it", "passed", 2.0);
  Add(4, "evolve:mutate", {0}, "", "passed", 2.5);
  RunData run = Load();
  std::vector<ArmSummary> arms = SummarizeArms(run);
  ASSERT_EQ(arms.size(), 3u);
  EXPECT_EQ(arms[0].arm, "sample");
  EXPECT_EQ(arms[0].gain, 0) << "the first passing kernel sets the best";
  EXPECT_DOUBLE_EQ(arms[0].cost_usd, 0.02);
  EXPECT_EQ(arms[1].arm, "tree");
  EXPECT_EQ(arms[1].calls, 3);
  EXPECT_DOUBLE_EQ(arms[1].gain, std::log(2.0));
  EXPECT_EQ(arms[2].arm, "evolve");
  EXPECT_DOUBLE_EQ(arms[2].gain, std::log(1.25));
  EXPECT_NE(ArmSummaryText(arms).find("tree         3 calls"), std::string::npos)
      << ArmSummaryText(arms);

  IdeaTree t = BuildIdeaTree(run, "h");
  ASSERT_EQ(t.roots.size(), 2u);  // seq 0 (sample's) and the tree's own failed root
  std::string text = IdeaTreeText(run, t);
  EXPECT_NE(text.find("  #0 (sample): passed 1.00x, expanded 1x\n    #3 Tile it: passed 2.00x"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  #1 root: incorrect: wrong"), std::string::npos) << text;
  RunSummary s = SummarizeRun(run);
  EXPECT_NE(RunSummaryText(run, s).find("arms (auto)"), std::string::npos);
  EXPECT_EQ(RunSummaryJson(run, s)["arms"].size(), 3u);
  EXPECT_NE(RenderHtmlReport(run, s, "").find("<h3>Strategies (auto)</h3>"), std::string::npos);
}

}  // namespace
}  // namespace hone
