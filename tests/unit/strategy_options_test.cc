// Each strategy owns its parameters (search/strategy.h: StrategySpec): the
// flags, the stored options, validation and the factory all come from the
// one declaration.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <set>

#include "cli/search_flags.h"
#include "lang/builtin.h"
#include "search/auto_strategy.h"
#include "search/evolve_strategy.h"
#include "search/refine_strategy.h"
#include "search/sample_strategy.h"
#include "search/strategy.h"
#include "search/tree_strategy.h"
#include "support/builtin_tasks.h"
#include "support/source_dir.h"
#include "task/task_loader.h"

namespace hone {
namespace {

using json = nlohmann::json;
using Names = std::vector<std::string>;

std::vector<std::string> KeysOf(const StrategySpec& spec) {
  std::vector<std::string> keys;
  for (const StrategyParam& p : spec.params) keys.push_back(p.key);
  return keys;
}

TEST(StrategyOptionsTest, EachStrategyDeclaresItsOwnParameters) {
  EXPECT_EQ(StrategyNames(), (Names{"sample", "refine", "evolve", "tree", "auto"}));
  EXPECT_EQ(StrategyNames(/*arms_only=*/true), (Names{"sample", "refine", "evolve", "tree"}));
  EXPECT_EQ(KeysOf(SampleStrategy::Spec()), (Names{"samples"}));
  EXPECT_EQ(KeysOf(RefineStrategy::Spec()), (Names{"chains", "turns"}));
  EXPECT_EQ(KeysOf(EvolveStrategy::Spec()), (Names{"islands", "population", "generations"}));
  EXPECT_EQ(KeysOf(TreeStrategy::Spec()), (Names{"ideas", "expansions", "depth", "roots"}));
  EXPECT_EQ(KeysOf(AutoStrategy::Spec()), (Names{"auto_calls", "arms"}));

  // Options start at each declaration's default, and no key or flag is
  // declared by two strategies.
  StrategyOptions o;
  EXPECT_EQ(o.name, "refine");
  std::set<std::string> keys, flags;
  for (const StrategySpec* spec : Strategies()) {
    EXPECT_EQ(FindStrategy(spec->name), spec);
    for (const StrategyParam& p : spec->params) {
      EXPECT_TRUE(keys.insert(p.key).second) << p.key;
      EXPECT_TRUE(flags.insert(p.flag).second) << p.flag;
      EXPECT_EQ(o.params.Value(p.key), p.initial) << p.key;
      EXPECT_TRUE(CheckParam(p, p.initial).ok()) << p.key;
    }
  }
  EXPECT_EQ(FindStrategy("bogus"), nullptr);
}

// The flags are the declarations': name, help, default, and they write
// into the options' parameters.
TEST(StrategyOptionsTest, FlagsComeFromTheDeclarations) {
  CLI::App app;
  cli::SearchFlags f;
  cli::AddSearchFlags(&app, f, "the search");
  for (const StrategySpec* spec : Strategies()) {
    for (const StrategyParam& p : spec->params) {
      const CLI::Option* option = app.get_option_no_throw(p.flag);
      ASSERT_NE(option, nullptr) << p.flag;
      EXPECT_EQ(option->get_description().rfind(spec->name + ": " + p.help, 0), 0u)
          << option->get_description();
    }
  }
  EXPECT_EQ(app.get_option("--strategy")->get_description(),
            "sample, refine, evolve, tree or auto");
  EXPECT_EQ(app.get_option("--samples")->get_default_str(), "8");
  EXPECT_EQ(app.get_option("--arms")->get_description(),
            "auto: the strategies to spread calls over, comma-separated");

  app.parse("--strategy auto --chains 5 --arms evolve,tree", false);
  EXPECT_EQ(f.strategy.name, "auto");
  EXPECT_EQ(f.strategy.params.Int("chains"), 5);
  EXPECT_EQ(f.strategy.params.Names("arms"), (Names{"evolve", "tree"}));
  EXPECT_EQ(f.strategy.params.Int("samples"), 8);
}

// Status::Invalid, naming the flag, for a value below a declared bound; a
// strategy's parameters are checked when it runs alone or as an arm of
// auto, and not otherwise.
TEST(StrategyOptionsTest, BadValueIsRefusedNamingTheFlag) {
  for (const StrategySpec* spec : Strategies()) {
    for (const StrategyParam& p : spec->params) {
      if (!std::holds_alternative<int>(p.initial)) continue;
      StrategyOptions o;
      o.name = spec->name;
      o.params.Set(p.key, -1);
      Status s = ValidateStrategyOptions(o);
      EXPECT_EQ(s.code(), StatusCode::kInvalidInput) << p.flag;
      EXPECT_EQ(s.message().rfind(p.flag + ": must ", 0), 0u) << s.message();
      if (spec->size_for) {
        StrategyOptions as_arm;
        as_arm.name = "auto";
        as_arm.params.Set("arms", Names{spec->name});
        as_arm.params.Set(p.key, -1);
        EXPECT_EQ(ValidateStrategyOptions(as_arm).message(), s.message());
      }
    }
  }
  StrategyOptions o;
  o.params.Set("generations", -1);
  EXPECT_EQ(ValidateStrategyOptions(o).message(), "");  // refine does not use it
  o.name = "evolve";
  EXPECT_EQ(ValidateStrategyOptions(o).message(), "--generations: must not be negative");
  o.params.Set("generations", 0);
  EXPECT_TRUE(ValidateStrategyOptions(o).ok());
  o.params.Set("chains", 0);
  o.name = "refine";
  EXPECT_EQ(ValidateStrategyOptions(o).message(), "--chains: must be positive");

  StrategyOptions a;
  a.name = "auto";
  a.params.Set("arms", Names{});
  EXPECT_EQ(ValidateStrategyOptions(a).message(),
            "--arms: name at least one of sample, refine, evolve, tree");
  a.params.Set("arms", Names{"tree", "auto"});
  EXPECT_EQ(ValidateStrategyOptions(a).message(),
            "--arms: expected sample, refine, evolve or tree, got 'auto'");
  a.name = "bogus";
  EXPECT_EQ(ValidateStrategyOptions(a).message(),
            "--strategy: expected sample, refine, evolve, tree or auto, got 'bogus'");

  // Through the flags, as `hone optimize` checks them.
  CLI::App app;
  cli::SearchFlags f;
  cli::AddSearchFlags(&app, f, "the search");
  app.parse("--strategy tree --roots 0", false);
  EXPECT_EQ(cli::ValidateSearchFlags(f).message(), "--roots: must be positive");
}

// The options as a run stores them: the same JSON as before strategies
// declared their own parameters, read back whole by --resume.
TEST(StrategyOptionsTest, OptionsRoundTripThroughTheRunsJson) {
  StrategyOptions defaults;
  EXPECT_EQ(StrategyOptionsToJson(defaults),
            json::parse(R"({"name": "refine", "samples": 8, "chains": 2, "turns": 4,
                            "islands": 2, "population": 4, "generations": 4, "ideas": 3,
                            "expansions": 4, "depth": 3, "roots": 3, "auto_calls": 24,
                            "arms": ["sample", "refine", "evolve", "tree"]})"));

  cli::SearchFlags f;
  f.model = "openai:gpt-4.1";
  f.strategy.name = "auto";
  f.strategy.params.Set("turns", 7);
  f.strategy.params.Set("generations", 0);
  f.strategy.params.Set("arms", Names{"tree", "sample"});
  f.strategy.params.Set("auto_calls", 9);
  json stored = cli::SearchFlagsToJson(f);
  EXPECT_EQ(stored["strategy"]["turns"], 7);
  EXPECT_EQ(stored["strategy"]["arms"], json({"tree", "sample"}));

  cli::SearchFlags resumed;
  cli::SearchFlagsFromJson(json::parse(stored.dump()), resumed);
  EXPECT_EQ(StrategyOptionsToJson(resumed.strategy), StrategyOptionsToJson(f.strategy));
  EXPECT_EQ(resumed.strategy.name, "auto");
  EXPECT_EQ(resumed.strategy.params.Int("auto_calls"), 9);

  // A run stored before a parameter existed keeps that parameter's value.
  StrategyOptions old;
  StrategyOptionsFromJson(json::parse(R"({"name": "tree", "ideas": 5})"), old);
  EXPECT_EQ(old.name, "tree");
  EXPECT_EQ(old.params.Int("ideas"), 5);
  EXPECT_EQ(old.params.Int("roots"), 3);
  EXPECT_EQ(old.params.Names("arms"), (Names{"sample", "refine", "evolve", "tree"}));
}

// As an arm of auto, each strategy sizes its own parameters to the calls.
TEST(StrategyOptionsTest, ArmsSizeThemselvesToTheCalls) {
  StrategyOptions o;
  for (const StrategySpec* spec : Strategies())
    if (spec->size_for) spec->size_for(o.params, 10);
  EXPECT_EQ(o.params.Int("samples"), 10);
  EXPECT_EQ(o.params.Int("chains"), 3);       // ceil(10 / 4 turns)
  EXPECT_EQ(o.params.Int("generations"), 1);  // ceil(10 / (2 x 4)) - 1
  EXPECT_EQ(o.params.Int("expansions"), 10);
  EXPECT_EQ(AutoStrategy::Spec().size_for, nullptr);
}

// The factory makes the strategy from its parameters' values.
TEST(StrategyOptionsTest, MakeStrategyUsesTheDeclaredParameters) {
  auto prompts = PromptBuilder::Load(testing::SourceDir() / "prompts",
                                     testing::SourceDir() / "include", BuiltInLanguages());
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  auto task = hone::testing::LoadBuiltInTask(testing::SourceDir() / "tasks" / "examples" / "gelu");
  ASSERT_TRUE(task.ok()) << task.status().message();
  StrategyContext context;
  context.task = &*task;
  context.language = BuiltInLanguages().Find("cpp");
  context.prompts = &*prompts;

  StrategyOptions o;
  o.name = "sample";
  o.params.Set("samples", 3);
  auto sample = MakeStrategy(o, context);
  ASSERT_TRUE(sample.ok()) << sample.status().message();
  int next_id = 0;
  EXPECT_EQ((*sample)->Propose(10, &next_id).size(), 3u);
  EXPECT_TRUE((*sample)->Finished());

  o.name = "refine";
  o.params.Set("chains", 0);
  auto refused = MakeStrategy(o, context);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "--chains: must be positive");
}

}  // namespace
}  // namespace hone
