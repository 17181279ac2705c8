// The kernel language is one seam (lang/language.h): a language added in a
// folder of its own (tests/languages/tinydsl/, a stand-in for CuTe DSL or
// TileLang) is evaluated, linted, prompted for and extracted by the same
// code as hone's own, with nothing outside its folder naming it. Its files
// are ModelNew files run on the CPU with Debian's torch; skips, with the
// reason, where no python3 imports torch.
#include <gtest/gtest.h>

#include <fstream>

#include "core/fs.h"
#include "languages/tinydsl/tinydsl_language.h"
#include "search/extract.h"
#include "search/prompt.h"
#include "task/oracle_service.h"
#include "test_env.h"

namespace hone {
namespace {

using namespace hone::testing;

struct Seam {
  EvaluatorEnv env;
  std::unique_ptr<OracleService> oracle;
  std::unique_ptr<Evaluator> evaluator;
  std::optional<Task> task;
  std::string unavailable;
};

Seam& Env() {
  static Seam* s = [] {
    auto* s = new Seam{TestCpuEnv(), nullptr, nullptr, std::nullopt, ""};
    RegisterTinyDslLanguage(s->env.languages);
    OracleOptions o;
    if (const char* e = std::getenv("HONE_SOURCE_DIR"); e && *e)
      o.script = SourceDir() / "python" / "hone_oracle.py";
    auto oracle = OracleService::Start("cpu", o);
    if (!oracle.ok()) {
      s->unavailable = oracle.status().message();
      return s;
    }
    s->oracle = std::move(*oracle);
    s->evaluator = std::make_unique<Evaluator>(s->env, s->oracle.get());
    auto task = s->oracle->Load(SourceDir() / "tasks/pytorch/elementwise_relu_scale.py", {});
    if (!task.ok()) {
      s->unavailable = task.status().message();
      return s;
    }
    s->task = std::move(*task);
    return s;
  }();
  return *s;
}

#define SKIP_WITHOUT_PROBLEM()                                                    \
  do {                                                                            \
    if (!Env().task) GTEST_SKIP() << "oracle unavailable: " << Env().unavailable; \
  } while (0)

Result<Verdict> Evaluate(const std::string& file, EvalOptions o = VerifyOnly()) {
  o.backend = "cpu";
  return Env().evaluator->Evaluate(*Env().task, TinyDslDir() / file, o);
}

TEST(LanguageSeamTest, ANewLanguagesFileIsTakenFromItsText) {
  const LanguageRegistry& languages = Env().env.languages;
  EXPECT_EQ(languages.ForFile(TinyDslDir() / "relu_scale.py").value()->name, kTinyDsl);
  // hone's own languages keep their files.
  EXPECT_EQ(languages.ForSource("m.py", "import triton\n").value()->name, "triton");
  EXPECT_EQ(languages.ForSource("m.py", "import torch\n").value()->name, "load_inline");
  EXPECT_EQ(languages.KernelDecorators(),
            (std::vector<std::string>{"triton.jit", "tinydsl.kernel"}));
}

TEST(LanguageSeamTest, ARightFilePassesInItsLanguage) {
  SKIP_WITHOUT_PROBLEM();
  auto v = Evaluate("relu_scale.py");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason << "\n" << v->sandbox.output_head;
  EXPECT_EQ(v->language, kTinyDsl);
  bool named = false;
  for (const Check& c : v->checks)
    named |= c.kind() == CheckKind::kLint &&
             c.detail.find("TinyDSL candidate; its kernels: relu_scale") != std::string::npos;
  EXPECT_TRUE(named) << "the lint check names the language's kernels";
  EXPECT_GT(v->sandbox.load_seconds, 0) << "the runner's load is reported";
}

TEST(LanguageSeamTest, AWrongFileIsIncorrect) {
  SKIP_WITHOUT_PROBLEM();
  auto v = Evaluate("relu_scale_wrong.py");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kIncorrect) << v->reason;
}

TEST(LanguageSeamTest, AFileWithoutAKernelOfTheLanguageIsRejectedByItsRules) {
  SKIP_WITHOUT_PROBLEM();
  auto v = Evaluate("torch_only.py");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kRejected) << v->reason;
  EXPECT_NE(v->reason.find("lint: rule 'library'"), std::string::npos) << v->reason;
}

TEST(LanguageSeamTest, ItsPromptsShowItsRulesItsExampleAndItsFence) {
  SKIP_WITHOUT_PROBLEM();
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-seam-prompts");
  ASSERT_TRUE(dir.ok());
  std::filesystem::copy(SourceDir() / "prompts", *dir);
  std::filesystem::copy(TinyDslDir() / "prompts", *dir);
  auto prompts = PromptBuilder::Load(*dir, SourceDir() / "include", Env().env.languages);
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  const Language& tiny = *Env().env.languages.Find(kTinyDsl);
  std::string first = prompts->FirstTurn(*Env().task, tiny, MachineInfo{});
  EXPECT_NE(first.find("Language: TinyDSL."), std::string::npos) << first;
  EXPECT_NE(first.find("@tinydsl.kernel\ndef affine"), std::string::npos) << first;
  EXPECT_NE(first.find("```python"), std::string::npos);
  EXPECT_NE(first.find("defines `class ModelNew(torch.nn.Module)`"), std::string::npos)
      << "the ModelNew contract";
  EXPECT_EQ(first.find("hone_forward"), std::string::npos) << "not the native contract";
  std::string system = prompts->System(tiny);
  EXPECT_NE(system.find("TinyDSL kernels"), std::string::npos) << system;
  std::filesystem::remove_all(*dir);
}

TEST(LanguageSeamTest, AReplyInItsFenceIsExtracted) {
  const Language& tiny = *Env().env.languages.Find(kTinyDsl);
  std::string code;
  {
    std::ifstream in(TinyDslDir() / "relu_scale.py");
    code.assign(std::istreambuf_iterator<char>(in), {});
  }
  Extraction e = ExtractCode("Here:\n```tinydsl\n" + code + "```\n", tiny, false);
  ASSERT_EQ(e.failure, ExtractFailure::kNone) << e.detail;
  EXPECT_EQ(e.code, code);
}

}  // namespace
}  // namespace hone
