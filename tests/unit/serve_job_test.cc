// The service's job and result records and the reward presets (serve/).
#include <gtest/gtest.h>

#include "lang/builtin.h"
#include "serve/eval_job.h"
#include "serve/eval_result.h"
#include "serve/openrlhf_shim.h"
#include "serve/reward.h"

namespace hone {
namespace {

using json = nlohmann::json;

json Item() {
  return {{"id", "job-1"},
          {"problem", "level1/19_ReLU"},
          {"candidate", {{"code", "class ModelNew: ..."}, {"kind", "modelnew"}}},
          {"config", {{"backend", "cuda"}, {"timeout_s", 60}}}};
}

TEST(EvalJobTest, ReadsAnItemAndItsContentKeyIgnoresTheId) {
  auto job = EvalJobFromJson(Item());
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->problem_name, "level1/19_ReLU");
  EXPECT_EQ(job->CandidateFileName(BuiltInLanguages()), "candidate.py");
  json other = Item();
  other["id"] = "job-2";
  EXPECT_EQ(EvalJobFromJson(other)->ContentKey(), job->ContentKey());
  other["candidate"]["code"] = "class ModelNew: pass";
  EXPECT_NE(EvalJobFromJson(other)->ContentKey(), job->ContentKey());
  auto back = EvalJobFromJson(EvalJobToJson(*job));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ContentKey(), job->ContentKey());
}

TEST(EvalJobTest, BadItemsNameTheirField) {
  struct Case {
    std::function<void(json&)> spoil;
    std::string field;
  } cases[] = {
      {[](json& j) { j.erase("id"); }, "items[0].id"},
      {[](json& j) { j["id"] = "has space"; }, "items[0].id"},
      {[](json& j) { j["problem"] = 3; }, "items[0].problem"},
      {[](json& j) { j["problem"] = "../etc/passwd"; }, "items[0].problem"},
      {[](json& j) { j["config"]["colour"] = "red"; }, "items[0].config.colour"},
      {[](json& j) { j["config"]["timeout_s"] = "long"; }, "items[0].config.timeout_s"},
  };
  for (const auto& c : cases) {
    json j = Item();
    c.spoil(j);
    auto job = EvalJobFromJson(j, "items[0].");
    ASSERT_FALSE(job.ok()) << c.field;
    EXPECT_NE(job.status().message().find(c.field), std::string::npos) << job.status().message();
  }
}

// The kind is read as given and checked against the server's languages:
// a registry with a language of its own knows what the built-ins do not.
TEST(EvalJobTest, AKindIsCheckedAgainstTheLanguagesGiven) {
  json j = Item();
  j["candidate"]["kind"] = "rust";
  auto job = EvalJobFromJson(j, "items[0].");
  ASSERT_TRUE(job.ok()) << job.status().message();
  Status unknown = CheckJobKind(*job, BuiltInLanguages(), "items[0].");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("items[0].candidate.kind"), std::string::npos)
      << unknown.message();
  EXPECT_NE(unknown.message().find("triton"), std::string::npos) << unknown.message();
  LanguageRegistry with_rust;
  for (const Language& l : BuiltInLanguages().all()) with_rust.Register(l);
  Language rust = *BuiltInLanguages().Find("cpp");
  rust.name = "rust";
  rust.aliases.clear();
  with_rust.Register(rust);
  EXPECT_TRUE(CheckJobKind(*job, with_rust).ok());
  EXPECT_TRUE(CheckJobKind(*EvalJobFromJson(Item()), BuiltInLanguages()).ok());
}

TEST(EvalResultTest, VerdictsMapToErrorClassesAndRoundTrip) {
  Verdict v;
  v.status = VerdictStatus::kIncorrect;
  v.reason = "max abs error 3";
  EvalResult r = ResultFromVerdict("x", v, 1, "cuda:0", 1234);
  EXPECT_EQ(r.error_class, "wrong_output");
  EXPECT_TRUE(r.compiled);
  EXPECT_FALSE(r.correct);
  EXPECT_EQ(r.error_msg, "max abs error 3");
  v.status = VerdictStatus::kCompileError;
  EXPECT_FALSE(ResultFromVerdict("x", v, 1, "", 0).compiled);
  EvalResult infra = InfraErrorResult("y", "worker died 3 times", 3, "cuda:1");
  EXPECT_TRUE(infra.infra_error());
  auto back = EvalResultFromJson(EvalResultToJson(infra));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->error_msg, "worker died 3 times");
  EXPECT_EQ(back->attempts, 3);
  json missing = EvalResultToJson(infra);
  missing.erase("eval_ms");
  EXPECT_FALSE(EvalResultFromJson(missing).ok());
}

EvalResult Passed(double speedup) {
  EvalResult r;
  r.compiled = r.correct = true;
  r.status = "passed";
  r.speedup = speedup;
  return r;
}

TEST(RewardTest, PresetsScoreAsDocumented) {
  EvalResult wrong;
  wrong.compiled = true;
  wrong.error_class = "wrong_output";
  EvalResult no_build;
  no_build.error_class = "compile";
  EvalResult infra = InfraErrorResult("i", "gpu lost", 1, "");
  auto kb = Reward::Preset("kernelbench").value();
  EXPECT_DOUBLE_EQ(kb.Score(Passed(2.5)), 2.5);
  EXPECT_DOUBLE_EQ(kb.Score(wrong), 0);
  EXPECT_DOUBLE_EQ(kb.Score(infra), 0);
  auto fast = Reward::FromJson({{"preset", "fast_p"}, {"threshold", 1.2}}).value();
  EXPECT_DOUBLE_EQ(fast.Score(Passed(1.3)), 1);
  EXPECT_DOUBLE_EQ(fast.Score(Passed(1.1)), 0);
  auto bands = Reward::Preset("bands").value();
  EXPECT_DOUBLE_EQ(bands.Score(no_build), -0.5);
  EXPECT_DOUBLE_EQ(bands.Score(wrong), -0.3);
  EXPECT_DOUBLE_EQ(bands.Score(Passed(0.9)), -0.1);
  EXPECT_DOUBLE_EQ(bands.Score(Passed(1.6)), 0.6);
  EXPECT_DOUBLE_EQ(bands.Score(Passed(5)), 1.0);
  EXPECT_DOUBLE_EQ(bands.Score(infra), 0);  // never a model failure
  auto weighted =
      Reward::FromJson({{"preset", "weighted"}, {"correct_weight", 0.3}, {"upper", 3.0}}).value();
  EXPECT_DOUBLE_EQ(weighted.Score(Passed(5)), 3.3);
  EXPECT_DOUBLE_EQ(Reward::Preset("binary").value().Score(Passed(0.5)), 1);
  EXPECT_FALSE(Reward::Preset("nosuch").ok());
  EXPECT_FALSE(Reward::FromJson({{"preset", "weighted"}, {"bogus", 1}}).ok());
}

TEST(OpenRlhfShimTest, TheModelNewBlockIsTakenFromTheResponse) {
  EXPECT_EQ(ModelNewFromResponse("text\n```python\nimport torch\n```\nmore\n```python\nclass "
                                 "ModelNew(nn.Module): pass\n```\nbye"),
            "class ModelNew(nn.Module): pass\n");
  EXPECT_EQ(ModelNewFromResponse("no code at all"), "");
  EXPECT_EQ(ModelNewFromResponse("class ModelNew: pass"), "class ModelNew: pass");
}

}  // namespace
}  // namespace hone
