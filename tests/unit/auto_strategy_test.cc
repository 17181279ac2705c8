// The auto strategy against a scripted environment (no LLM, no evaluation):
// it shifts its calls toward the arm whose attempts raise the best speedup
// per dollar, hands results back to the arm that proposed them in the order
// proposed, and stores each attempt with its arm.
#include "search/auto_strategy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "search/strategy.h"
#include "store/candidate_kind.h"
#include "support/builtin_tasks.h"
#include "support/source_dir.h"
#include "task/task_loader.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// An arm that always has one more proposal (until `limit`) and records
// what it is told.
class FakeArm : public SearchStrategy {
 public:
  explicit FakeArm(std::string kind, int limit = 1000) : kind_(std::move(kind)), limit_(limit) {}
  std::vector<Proposal> Propose(int max, int* next_id) override {
    std::vector<Proposal> out;
    while (static_cast<int>(out.size()) < max && issued_ < limit_) {
      Proposal p;
      p.id = (*next_id)++;
      p.kind = kind_;
      p.lineage = issued_++;
      out.push_back(p);
    }
    return out;
  }
  void Observe(const AttemptResult& r) override { observed.push_back(r.proposal); }
  void ObserveElsewhere(const AttemptResult& r) override { elsewhere.push_back(r.proposal.id); }
  bool Finished() const override { return issued_ >= limit_; }

  std::vector<Proposal> observed;
  std::vector<int> elsewhere;

 private:
  std::string kind_;
  int limit_, issued_ = 0;
};

struct Arms {
  std::vector<FakeArm*> fakes;
  std::unique_ptr<AutoStrategy> strategy;
};

Arms MakeAuto(const std::vector<std::string>& names, int calls) {
  Arms a;
  std::vector<AutoArm> arms;
  for (const std::string& name : names) {
    auto fake = std::make_unique<FakeArm>(name == "evolve" ? "mutate" : name);
    a.fakes.push_back(fake.get());
    arms.push_back({name, std::move(fake)});
  }
  a.strategy = std::make_unique<AutoStrategy>(std::move(arms), calls);
  return a;
}

// The environment: an attempt of arm `good` raises the best speedup by 10%
// (the first one sets it at 1), every other arm's passes slower than the
// best (or fails); each call costs `dollars` of its arm.
struct Environment {
  std::string good;
  std::map<std::string, double> dollars{};
  double best = 0;

  void Raise() { best = best > 0 ? best * 1.1 : 1.0; }

  AttemptResult Answer(const Proposal& p) {
    AttemptResult r;
    r.proposal = p;
    r.reply.ok = true;
    std::string arm(ArmOfKind(p.kind));
    r.reply.cost_usd = dollars.count(arm) ? dollars[arm] : 0.01;
    r.reply.input_tokens = 100;
    Verdict v;
    if (arm == good) {
      Raise();
      v.timing.speedup = best;
    } else {
      v.status = p.id % 2 ? VerdictStatus::kIncorrect : VerdictStatus::kPassed;
      v.timing.speedup = best * 0.5;
    }
    r.verdict = v;
    return r;
  }
};

// Drives the strategy to its end with `room` calls per round, answering
// each round in reverse; returns the arm of every proposal, in order.
std::vector<std::string> Drive(AutoStrategy& s, Environment& env, int room) {
  std::vector<std::string> arms;
  int next_id = 0;
  for (int guard = 0; guard < 1000 && !s.Finished(); ++guard) {
    std::vector<Proposal> round = s.Propose(room, &next_id);
    EXPECT_FALSE(round.empty()) << "an unfinished auto strategy with nothing pending proposes";
    if (round.empty()) break;
    EXPECT_TRUE(s.Propose(room, &next_id).empty()) << "nothing more until the round is in";
    for (const Proposal& p : round) arms.emplace_back(ArmOfKind(p.kind));
    std::vector<AttemptResult> answers;
    for (const Proposal& p : round) answers.push_back(env.Answer(p));
    for (auto it = answers.rbegin(); it != answers.rend(); ++it) s.Observe(*it);
  }
  return arms;
}

double ShareAfter(const std::vector<std::string>& arms, size_t warmup, const std::string& arm) {
  if (arms.size() <= warmup) return 0;
  long n = std::count(arms.begin() + static_cast<std::ptrdiff_t>(warmup), arms.end(), arm);
  return static_cast<double>(n) / static_cast<double>(arms.size() - warmup);
}

TEST(AutoStrategyTest, ShiftsItsBudgetTowardTheArmThatGains) {
  const std::vector<std::string> names = {"sample", "refine", "evolve", "tree"};
  for (size_t good = 0; good < names.size(); ++good) {
    Arms a = MakeAuto(names, 60);
    Environment env{names[good]};
    std::vector<std::string> arms = Drive(*a.strategy, env, 4);
    ASSERT_EQ(arms.size(), 60u);
    // Warm-up: every arm once, in the order listed.
    EXPECT_EQ(std::vector<std::string>(arms.begin(), arms.begin() + 4), names);
    EXPECT_GT(ShareAfter(arms, 4, names[good]), 0.6) << names[good];
    const auto& stats = a.strategy->stats();
    for (size_t i = 0; i < names.size(); ++i) {
      if (i == good) continue;
      EXPECT_GT(stats[good].proposed, 3 * stats[i].proposed) << names[good] << " vs " << names[i];
      EXPECT_EQ(stats[i].gain, 0) << names[i];
    }
    // The first passing kernel sets the best; every later one gains ln 1.1.
    EXPECT_NEAR(stats[good].gain, std::log(1.1) * (stats[good].observed - 1), 1e-9);
  }
}

TEST(AutoStrategyTest, PrefersTheCheaperOfTwoArmsThatGainAlike) {
  Arms a = MakeAuto({"sample", "tree"}, 60);
  // Both raise the best alike, by 10% a call; tree's calls cost a tenth of
  // sample's.
  struct Both : Environment {
    AttemptResult Answer(const Proposal& p) {
      AttemptResult r = Environment::Answer(p);
      Raise();
      r.verdict = Verdict{};
      r.verdict->timing.speedup = best;
      return r;
    }
  };
  Both env;
  env.dollars = {{"sample", 0.10}, {"tree", 0.01}};
  std::vector<AttemptResult> answers;
  int next_id = 0;
  std::map<std::string, int> given;
  while (!a.strategy->Finished()) {
    auto round = a.strategy->Propose(2, &next_id);
    ASSERT_FALSE(round.empty());
    for (const Proposal& p : round) {
      ++given[std::string(ArmOfKind(p.kind))];
      a.strategy->Observe(env.Answer(p));
    }
  }
  EXPECT_GT(given["tree"], 2 * given["sample"]) << given["tree"] << " vs " << given["sample"];
  auto rates = a.strategy->Rates();
  EXPECT_GT(rates[1], rates[0]);
}

TEST(AutoStrategyTest, ResultsGoBackToTheirArmInTheOrderProposedWithTheirOwnKind) {
  Arms a = MakeAuto({"sample", "evolve"}, 8);
  Environment env{"evolve"};
  int next_id = 0;
  auto round = a.strategy->Propose(4, &next_id);
  ASSERT_EQ(round.size(), 4u);
  EXPECT_EQ(round[0].kind, "sample") << "an arm's own name is not repeated";
  EXPECT_EQ(round[1].kind, "evolve:mutate");
  std::vector<AttemptResult> answers;
  for (const Proposal& p : round) answers.push_back(env.Answer(p));
  a.strategy->Observe(answers[3]);
  a.strategy->Observe(answers[1]);
  EXPECT_TRUE(a.fakes[1]->observed.empty()) << "held until the round is in";
  a.strategy->Observe(answers[2]);
  a.strategy->Observe(answers[0]);
  std::vector<int> ids;
  for (const Proposal& p : a.fakes[1]->observed) {
    ids.push_back(p.id);
    EXPECT_EQ(p.kind, "mutate");
  }
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  size_t total = a.fakes[0]->observed.size() + a.fakes[1]->observed.size();
  EXPECT_EQ(total, 4u);
  // Every result also reaches the other arm.
  EXPECT_EQ(a.fakes[0]->elsewhere.size(), a.fakes[1]->observed.size());
  auto summary = a.strategy->Summary();
  EXPECT_EQ(summary["arms"][0]["arm"], "sample");
  EXPECT_EQ(summary["arms"][0]["observed"].get<int>() + summary["arms"][1]["observed"].get<int>(),
            4);
}

TEST(AutoStrategyTest, WhileNothingGainsTheCallsGoRoundTheArms) {
  Arms a = MakeAuto({"sample", "refine", "evolve"}, 12);
  Environment env{"none"};
  std::vector<std::string> arms = Drive(*a.strategy, env, 3);
  for (size_t i = 0; i < arms.size(); ++i) EXPECT_EQ(arms[i], arms[i % 3]) << i;
}

TEST(AutoStrategyTest, StopsAtItsCallsOrWhenEveryArmIsDone) {
  std::vector<AutoArm> arms;
  arms.push_back({"sample", std::make_unique<FakeArm>("sample", 2)});
  arms.push_back({"refine", std::make_unique<FakeArm>("refine", 1)});
  AutoStrategy s(std::move(arms), 10);
  Environment env{"none"};
  int next_id = 0;
  auto round = s.Propose(8, &next_id);
  EXPECT_EQ(round.size(), 3u) << "both arms ran dry";
  for (const Proposal& p : round) s.Observe(env.Answer(p));
  EXPECT_TRUE(s.Finished());

  Arms capped = MakeAuto({"sample", "refine"}, 3);
  auto first = capped.strategy->Propose(8, &next_id);
  EXPECT_EQ(first.size(), 3u);
  for (const Proposal& p : first) capped.strategy->Observe(env.Answer(p));
  EXPECT_TRUE(capped.strategy->Finished());
}

using testing::SourceDir;

// MakeStrategy builds the real arms, each proposing under its own name.
TEST(AutoStrategyTest, MakeStrategyBuildsEveryArm) {
  auto prompts =
      PromptBuilder::Load(SourceDir() / "prompts", SourceDir() / "include", BuiltInLanguages());
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  auto task = hone::testing::LoadBuiltInTask(SourceDir() / "tasks" / "examples" / "gelu");
  ASSERT_TRUE(task.ok()) << task.status().message();
  StrategyContext context;
  context.task = &*task;
  context.language = BuiltInLanguages().Find("cpp");
  context.prompts = &*prompts;
  StrategyOptions o;
  o.name = "auto";
  auto s = MakeStrategy(o, context);
  ASSERT_TRUE(s.ok()) << s.status().message();
  int next_id = 0;
  auto round = (*s)->Propose(8, &next_id);
  std::vector<std::string> kinds;
  for (const Proposal& p : round) kinds.push_back(p.kind);
  ASSERT_GE(kinds.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(kinds.begin(), kinds.begin() + 4),
            (std::vector<std::string>{"sample", "refine", "evolve:sample", "tree:root"}));

  o.params.Set("arms", std::vector<std::string>{"tree", "bogus"});
  EXPECT_NE(ValidateStrategyOptions(o).message().find("--arms"), std::string::npos);
  o.params.Set("arms", std::vector<std::string>{"tree", "tree"});
  EXPECT_NE(ValidateStrategyOptions(o).message().find("named twice"), std::string::npos);
  o.params.Set("arms", std::vector<std::string>{"tree"});
  o.params.Set("ideas", 0);
  EXPECT_NE(ValidateStrategyOptions(o).message().find("--ideas"), std::string::npos);
  o.params.Set("ideas", 3);
  o.params.Set("auto_calls", 0);
  EXPECT_NE(ValidateStrategyOptions(o).message().find("--auto-calls"), std::string::npos);
  o.name = "bogus";
  EXPECT_NE(ValidateStrategyOptions(o).message().find("tree or auto"), std::string::npos);
}

}  // namespace
}  // namespace hone
