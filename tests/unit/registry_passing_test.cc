// The language registry reaches code by being passed in (issue 54): a
// language a test registers in a registry of its own is what the paths
// that once asked BuiltInLanguages() themselves see, and the built-in
// registry, passed instead, does not know it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/backend_names.h"
#include "lang/builtin.h"
#include "run/eval_options.h"
#include "serve/job_evaluator.h"
#include "session/eval_context.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

constexpr char kTestRule[] = "registry_test_rule";

// The built-in languages and one of the test's own: ".tdk" files, run on
// the host backend, with a lint rule no built-in language has.
LanguageRegistry WithTestLanguage() {
  LanguageRegistry r = BuiltInLanguages();
  Language l;
  l.name = "registry_test";
  l.label = "Registry test language";
  l.source.extensions = {".tdk"};
  l.source.fences = {"tdk"};
  l.run.devices = {kHostBackend};
  l.lint.rules = {LanguageRule{kTestRule, "a rule only the test language has"}};
  r.Register(std::move(l));
  return r;
}

class RegistryPassing : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hone-registry-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    file_ = dir_ / "kernel.tdk";
    std::ofstream(file_) << "a kernel in the test language\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, file_;
  const LanguageRegistry registry_ = WithTestLanguage();
};

TEST_F(RegistryPassing, CandidateFileIsCheckedInThePassedLanguages) {
  EXPECT_TRUE(CheckCandidateFile(file_.string(), registry_).ok());
  EXPECT_FALSE(CheckCandidateFile(file_.string(), BuiltInLanguages()).ok());
}

TEST_F(RegistryPassing, SuiteSolutionsAreTheNamedLanguagesFiles) {
  EXPECT_TRUE(SolutionsFor(kHostBackend, registry_)(file_));
  EXPECT_FALSE(SolutionsFor(kHostBackend, BuiltInLanguages())(file_));
}

TEST_F(RegistryPassing, AllowedRulesAreThePassedLanguagesRules) {
  auto rules = ParseAllowedRules({kTestRule}, registry_);
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  EXPECT_EQ(rules->count(kTestRule), 1u);
  EXPECT_FALSE(ParseAllowedRules({kTestRule}, BuiltInLanguages()).ok());
}

TEST_F(RegistryPassing, AServedJobsKindIsLookedUpInThePassedLanguages) {
  EvalJob job;
  job.candidate_kind = "registry_test";
  job.candidate_code = "a kernel in the test language\n";
  auto language = JobLanguage(job, registry_);
  ASSERT_TRUE(language.ok()) << language.status().message();
  EXPECT_EQ((*language)->name, "registry_test");
  EXPECT_FALSE(JobLanguage(job, BuiltInLanguages()).ok());
  auto backend = JobBackend(job, kHostBackend, registry_, BuiltInBackends());
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  EXPECT_EQ(*backend, kHostBackend);
}

}  // namespace
}  // namespace hone
