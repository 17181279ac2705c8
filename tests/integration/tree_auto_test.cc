// The tree and auto strategies end to end: `hone optimize` on a CPU task
// with a fake LLM server that answers by rules (no network). The tree
// expands the idea that gained, keeps the failed one with its reason and
// shows it to the next call for ideas; auto spreads its calls over its
// arms and finds the fast kernel through the tree; both store every
// attempt, resume after SIGKILL without asking or evaluating anything
// again, and `hone report` shows the tree (and the arms).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/fs.h"
#include "integration/fixture_kernels.h"
#include "integration/kill_midrun.h"
#include "integration/test_env.h"
#include "store/candidate_kind.h"
#include "store/store.h"
#include "support/fake_llm_server.h"

namespace hone {
namespace {

using namespace hone::testing;
using json = nlohmann::json;

constexpr char kFastIdea[] = "Drop the 50 repeated passes (fast)";
constexpr char kBrokenIdea[] = "Unroll the loop (broken)";
constexpr char kSlowIdea[] = "Use restrict pointers (slow)";

std::string Slurp(const std::filesystem::path& p) {
  auto text = ReadFile(p);
  return text.ok() ? *text : "";
}

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

std::string Fenced(const std::string& code) { return "Here it is.\n\n```cpp\n" + code + "```\n"; }

// A call for ideas always gets the same three ideas (the model repeats
// itself; the tree drops what it knows); an idea's implementation is the
// kernel the idea names; every other prompt gets the slow kernel, except,
// when `first_broken`, one that shows no feedback (a first turn, an
// evolution turn), which gets a kernel that does not compile. A function of
// the request alone, so a resumed run is answered as the first one was.
FakeResponse ByRule(const FakeRequest& r, bool first_broken, int delay_ms) {
  std::string text;
  if (Has(r.body, "distinct ideas, each of which would make the kernel above faster")) {
    text = std::string("Three ideas.\n\n```ideas\n1. ") + kFastIdea + "\n2. " + kBrokenIdea +
           "\n3. " + kSlowIdea + "\n```\n";
  } else if (Has(r.body, "# The change to make")) {
    text = Fenced(Has(r.body, "(fast)") ? FastKernel() : Has(r.body, "(broken)") ? kBroken : kSlow);
  } else {
    bool feedback = Has(r.body, "hone evaluated your last candidate");
    text = Fenced(first_broken && !feedback ? kBroken : kSlow);
  }
  FakeResponse out{200, {}, OpenAiReply(text)};
  out.delay_ms = delay_ms;
  return out;
}

class TreeAutoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    dir_ = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-tree-auto");
    db_ = dir_ / "store.db";
  }
  void TearDown() override {
    server_.Stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void AnswerByRule(bool first_broken, int delay_ms = 0) {
    server_.SetHandler([this, first_broken, delay_ms](const FakeRequest& r) {
      {
        std::lock_guard lock(asked_mu_);
        asked_bodies_.push_back(r.body);
      }
      ++answered_;
      return ByRule(r, first_broken, delay_ms);
    });
  }

  std::vector<std::string> Args(const std::string& run_dir, std::vector<std::string> strategy) {
    std::vector<std::string> args = {
        "optimize",      (SourceDir() / "tests/integration/fixture_add").string(),
        "--model",       "openai-compatible:fake",
        "--base-url",    server_.base_url(),
        "--store",       db_.string(),
        "--run-dir",     (dir_ / run_dir).string(),
        "--time-budget", "0.2",
        "--flush",       "none",
        "--json",        "--quiet"};
    args.insert(args.end(), strategy.begin(), strategy.end());
    return args;
  }

  static json Summary(const CommandResult& r) {
    size_t at = r.output.find("\n{");
    at = at == std::string::npos ? r.output.find('{') : at + 1;
    return json::parse(r.output.substr(at == std::string::npos ? 0 : at), nullptr, false);
  }

  std::vector<CandidateWithEvaluation> Rows() {
    auto store = Store::Open(db_);
    EXPECT_TRUE(store.ok());
    auto rows = (*store)->RunCandidates(1);
    EXPECT_TRUE(rows.ok());
    return rows.ok() ? *rows : std::vector<CandidateWithEvaluation>{};
  }

  // Kills a run of `strategy` once two evaluations are stored, resumes it
  // and checks that nothing stored was asked or evaluated again.
  void KillAndResume(const std::vector<std::string>& strategy);

  // The requests asked since `from`, for a failure's message: which
  // prompts a resumed run did not find stored.
  std::string AskedSince(int from) {
    std::lock_guard lock(asked_mu_);
    std::string out;
    for (size_t i = static_cast<size_t>(from); i < asked_bodies_.size(); ++i)
      out += "--- request " + std::to_string(i) + ":\n" + asked_bodies_[i] + "\n";
    return out;
  }

  FakeLlmServer server_;
  std::filesystem::path dir_, db_;
  std::atomic<int> answered_{0};
  std::mutex asked_mu_;
  std::vector<std::string> asked_bodies_;
};

const CandidateRow* Find(const std::vector<CandidateWithEvaluation>& rows,
                         const std::string& own_kind, const std::string& label_part = "") {
  for (const auto& r : rows)
    if (OwnKind(r.candidate.kind) == own_kind && Has(r.candidate.label, label_part))
      return &r.candidate;
  return nullptr;
}

TEST_F(TreeAutoTest, TreeExpandsTheIdeaThatGainedAndTheReportShowsTheTree) {
  AnswerByRule(false);
  std::filesystem::path best = dir_ / "best.cpp";
  std::vector<std::string> args =
      Args("tree", {"--strategy", "tree", "--ideas", "3", "--expansions", "2", "--depth", "2",
                    "--roots", "2", "--concurrency", "3", "-o", best.string()});
  auto r = RunHone(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json j = Summary(r);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  // A root, a call for ideas and its three ideas, a call for ideas on the
  // fast kernel and the one idea it has not tried (the fast one is applied,
  // the broken one failed).
  EXPECT_EQ(j["candidates"], 7) << r.output;
  EXPECT_EQ(j["planning_calls"], 2);
  EXPECT_EQ(j["extraction_failures"], 0);
  EXPECT_EQ(j["verdicts"]["compile_error"], 1);
  EXPECT_EQ(j["strategy_summary"]["expansions"], 2);
  EXPECT_EQ(j["strategy_summary"]["best"]["idea"], kFastIdea);
  EXPECT_EQ(Slurp(best), FastKernel()) << "the fast idea's kernel is the best";

  auto rows = Rows();
  ASSERT_EQ(rows.size(), 7u);
  const CandidateRow* fast = Find(rows, kIdeaKind, "(fast)");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->label, kFastIdea);
  std::vector<const CandidateRow*> calls;
  for (const auto& row : rows)
    if (!AsksForCode(row.candidate.kind)) {
      calls.push_back(&row.candidate);
      EXPECT_FALSE(row.candidate.source.has_value());
      EXPECT_FALSE(row.evaluation.has_value()) << "a call for ideas is not evaluated";
    }
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1]->parents, std::vector<int>{fast->seq}) << "the idea that gained is expanded";
  EXPECT_EQ(Find(rows, kIdeaKind, "(slow)")->parents.size(), 1u);

  // The second call for ideas listed the failed idea with its reason.
  int ideas_calls = 0;
  for (const auto& req : server_.requests()) {
    if (!Has(req.body, "distinct ideas, each of which")) continue;
    if (++ideas_calls == 2) {
      EXPECT_TRUE(Has(req.body, std::string(kBrokenIdea) + " -- failed on another kernel: "
                                                           "compile_error"))
          << req.body;
      EXPECT_TRUE(Has(req.body, std::string("- ") + kFastIdea)) << "applied on the way";
    }
  }
  EXPECT_EQ(ideas_calls, 2);

  // Resumed when finished, it replays every call (asking none) and says
  // what the tree did. The prompts quote measured times: the live run's
  // strategy saw each verdict as stored, so the resumed run, reading them
  // back, builds the same prompts word for word whatever was measured.
  const int asked = answered_.load();
  auto again = RunHone({"optimize", "--resume", "1", "--store", db_.string()});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(answered_.load(), asked) << again.output;
  EXPECT_TRUE(Has(again.output,
                  "7 LLM calls (0 failed after retries, 0 without usable code, 2 "
                  "asking for ideas, not code)"))
      << again.output;
  EXPECT_TRUE(Has(again.output, "idea tree: 5 nodes (4 ideas), 4 passed, 1 failed, 2 expansions"))
      << again.output;

  auto report = RunHone({"report", "1", "--store", db_.string()});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_TRUE(Has(report.output, "attempts: 5")) << "calls for ideas are not attempts\n"
                                                 << report.output;
  EXPECT_TRUE(Has(report.output,
                  "idea tree: 1 root(s), 4 idea(s) (3 passed, 1 failed), 2 call(s) for ideas"))
      << report.output;
  EXPECT_TRUE(Has(report.output, std::string(kFastIdea) + ": passed")) << report.output;
  EXPECT_TRUE(Has(report.output, std::string(kBrokenIdea) + ": compile_error")) << report.output;
  EXPECT_TRUE(Has(report.output, "expanded 1x")) << report.output;
  auto as_json = RunHone({"report", "1", "--store", db_.string(), "--json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.output;
  json tree = json::parse(as_json.output)["tasks"][0]["idea_tree"];
  ASSERT_EQ(tree["roots"].size(), 1u) << tree;
  EXPECT_EQ(tree["roots"][0]["children"].size(), 3u) << tree;

  // The HTML page has it too (Chart.js stood in for: only the tree is read).
  std::filesystem::path chart = dir_ / "chart.js", page = dir_ / "report.html";
  ASSERT_TRUE(WriteFileAtomic(chart, "window.Chart = function () {};").ok());
  setenv("HONE_CHARTJS", chart.c_str(), 1);
  auto html = RunHone({"report", "1", "--store", db_.string(), "-o", page.string()});
  unsetenv("HONE_CHARTJS");
  ASSERT_EQ(html.exit_code, 0) << html.output;
  std::string text = Slurp(page);
  EXPECT_TRUE(Has(text, "<h4>Idea tree</h4>"));
  EXPECT_TRUE(Has(text, std::string(kBrokenIdea) + " &mdash; <span class=\"failed\">"));
}

// Rounds of two calls. While nothing gains they alternate: sample's first
// turns never compile; the tree's root passes (slow) on its second turn,
// then a call for ideas, then the fast idea, which gains; the last round
// goes to the tree.
TEST_F(TreeAutoTest, AutoSpreadsItsCallsAndFindsTheFastKernelThroughTheTree) {
  AnswerByRule(true);
  std::filesystem::path best = dir_ / "best.cpp";
  auto r = RunHone(Args("auto", {"--strategy", "auto", "--arms", "sample,tree", "--auto-calls",
                                 "10", "--ideas", "3", "--concurrency", "2", "-o", best.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json j = Summary(r);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  EXPECT_EQ(j["candidates"], 10);
  json arms = j["strategy_summary"]["arms"];
  ASSERT_EQ(arms.size(), 2u) << j;
  EXPECT_EQ(arms[0]["arm"], "sample");
  EXPECT_EQ(arms[1]["arm"], "tree");
  EXPECT_EQ(arms[0]["passed"], 0) << j;
  EXPECT_EQ(arms[0]["proposed"], 4) << j;
  EXPECT_EQ(arms[1]["proposed"], 6) << "the arm that gained gets the last round\n" << j;
  EXPECT_GT(arms[1]["gain"].get<double>(), 1.0) << "the fast idea: about ln 50";
  EXPECT_EQ(Slurp(best), FastKernel());

  auto rows = Rows();
  ASSERT_EQ(rows.size(), 10u);
  std::set<std::string> kinds;
  for (const auto& row : rows) kinds.insert(row.candidate.kind);
  EXPECT_TRUE(kinds.count("sample") && kinds.count("tree:root") && kinds.count("tree:ideas") &&
              kinds.count("tree:idea"))
      << "each attempt is stored with its arm";

  auto report = RunHone({"report", "1", "--store", db_.string()});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_TRUE(Has(report.output, "arms (auto)")) << report.output;
  EXPECT_TRUE(Has(report.output, "idea tree:")) << report.output;
  EXPECT_TRUE(Has(report.output, std::string(kFastIdea) + ": passed")) << report.output;
  auto as_json = RunHone({"report", "1", "--store", db_.string(), "--json"});
  // Resumed when finished, it replays every call (asking none) and ends
  // with the same arms.
  const int asked = answered_.load();
  auto again = RunHone({"optimize", "--resume", "1", "--store", db_.string()});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(answered_.load(), asked) << again.output << "\nthe first run's requests:\n"
                                     << AskedSince(0);
  EXPECT_TRUE(Has(again.output, "arms: sample 4 calls, gain 0.00; tree 6 calls, gain "))
      << again.output;
  json report_arms = json::parse(as_json.output)["arms"];
  ASSERT_EQ(report_arms.size(), 2u);
  for (const json& a : report_arms) {
    if (a["arm"] != "tree") continue;
    EXPECT_EQ(a["calls"], 6);
    EXPECT_NEAR(a["gain"].get<double>(), arms[1]["gain"].get<double>(), 1e-9)
        << "the report counts gains as the bandit did";
  }
}

// The cached ceilings may be measured again between a run and its resume
// (a cleared cache, another hone writing it, a busy GPU's measurement that
// is never cached): the prompts describe the machine as the run folder
// froze it, so the resume still finds every stored reply.
TEST_F(TreeAutoTest, ResumeAsksNothingAgainWhenTheMachineWasMeasuredAgain) {
  AnswerByRule(true);
  auto first = RunHone(Args("first", {"--strategy", "sample", "--samples", "2"}));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const int asked = answered_.load();
  ASSERT_GT(asked, 0);

  // A cache of its own whose CPU ceilings read twice as fast.
  auto machine = json::parse(Slurp(TestCache() / "machine-cpu.json"), nullptr, false);
  ASSERT_TRUE(machine.is_object());
  machine["copy_bandwidth_gbs"] = machine["copy_bandwidth_gbs"].get<double>() * 2;
  machine["fp32_gflops"] = machine["fp32_gflops"].get<double>() * 2;
  const std::filesystem::path cache = dir_ / "remeasured-cache";
  std::filesystem::create_directories(cache);
  ASSERT_TRUE(WriteFileAtomic(cache / "machine-cpu.json", machine.dump()).ok());
  CommandOptions o;
  o.max_output_bytes = 8 << 20;
  auto again = RunCommand({"env", "HONE_CACHE=" + cache.string(), (BinaryDir() / "hone").string(),
                           "optimize", "--resume", "1", "--store", db_.string()},
                          o);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->exit_code, 0) << again->output;
  EXPECT_EQ(answered_.load(), asked) << again->output << "\n" << AskedSince(asked);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "first" / "machine.json"));

  // A flag that would change the resumed run is refused, naming it.
  auto more = RunHone({"optimize", "--resume", "1", "--store", db_.string(), "--samples", "3"});
  EXPECT_EQ(more.exit_code, 2) << more.output;
  EXPECT_NE(more.output.find("--samples would change them and be ignored"), std::string::npos)
      << more.output;
}

void TreeAutoTest::KillAndResume(const std::vector<std::string>& strategy) {
  AnswerByRule(true, 300);
  const std::filesystem::path log = dir_ / "killed.log";
  int status = KillOnceEvaluated(SpawnHone(Args("killed", strategy), log.string()), db_);
  ASSERT_TRUE(WIFSIGNALED(status))
      << "the run ended before it could be killed, exit status "
      << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << "; its output:\n"
      << Slurp(log) << "\nits stored candidates: " << Rows().size();
  std::map<int, std::string> finished_before;  // seq -> when its evaluation finished
  auto before = Rows();
  for (const auto& r : before)
    if (r.evaluation && r.evaluation->state == "finished")
      finished_before[r.candidate.seq] = r.evaluation->finished;
  const int asked_before = answered_.load();

  auto resumed = RunHone({"optimize", "--resume", "1", "--store", db_.string(), "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  json j = Summary(resumed);
  ASSERT_FALSE(j.is_discarded()) << resumed.output;
  EXPECT_EQ(j["replayed"], static_cast<int>(before.size())) << "every stored reply was used";
  EXPECT_EQ(j["stored_verdicts"], static_cast<int>(finished_before.size()));
  const int total = j["candidates"].get<int>();
  EXPECT_EQ(answered_.load() - asked_before, total - static_cast<int>(before.size()))
      << "only the calls without a stored reply were asked again";

  auto after = Rows();
  ASSERT_EQ(static_cast<int>(after.size()), total);
  std::set<int> seqs;
  for (const auto& r : after) {
    seqs.insert(r.candidate.seq);
    if (!AsksForCode(r.candidate.kind)) continue;
    ASSERT_TRUE(r.evaluation.has_value()) << "seq " << r.candidate.seq;
    EXPECT_EQ(r.evaluation->state, "finished");
    if (finished_before.count(r.candidate.seq)) {
      EXPECT_EQ(r.evaluation->finished, finished_before[r.candidate.seq]) << "not evaluated again";
    }
  }
  EXPECT_EQ(static_cast<int>(seqs.size()), total);
  auto store = Store::Open(db_);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->GetRun(1)->status, "finished");
}

TEST_F(TreeAutoTest, TreeResumesAfterSigkillAskingNothingAgain) {
  KillAndResume({"--strategy", "tree", "--ideas", "3", "--expansions", "2", "--depth", "2",
                 "--concurrency", "3"});
}

TEST_F(TreeAutoTest, AutoResumesAfterSigkillAskingNothingAgain) {
  KillAndResume({"--strategy", "auto", "--arms", "sample,refine,tree", "--auto-calls", "8",
                 "--concurrency", "2"});
}

}  // namespace
}  // namespace hone
