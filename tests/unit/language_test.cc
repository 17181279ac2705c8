// The kernel languages (lang/language.h): the registry's rules for telling a
// file's language, its fences and rules, and hone's built-in languages.
#include "lang/language.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <filesystem>
#include <fstream>

#include "lang/builtin.h"
#include "lang/entry_points.h"

namespace hone {
namespace {

Language Made(const std::string& name, std::vector<std::string> extensions,
              std::function<bool(std::string_view)> claims = nullptr) {
  Language l;
  l.name = name;
  l.label = name + " label";
  l.source.extensions = std::move(extensions);
  l.source.fences = {name};
  l.source.claims = std::move(claims);
  l.run.devices = {"cpu"};
  return l;
}

TEST(LanguageRegistryTest, FindsByNameOrAliasWhateverTheCase) {
  const LanguageRegistry& r = BuiltInLanguages();
  EXPECT_EQ(r.Find("triton")->name, "triton");
  EXPECT_EQ(r.Find("Triton")->name, "triton");
  EXPECT_EQ(r.Find("modelnew")->name, "load_inline");
  EXPECT_EQ(r.Find("c++")->name, "cpp");
  EXPECT_EQ(r.Find("cuda")->name, "cuda");
  EXPECT_EQ(r.Find("fortran"), nullptr);
  auto unknown = r.Get("fortran");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "unknown language 'fortran' (known: cpp, cuda, load_inline, triton)");
}

TEST(LanguageRegistryTest, AFileIsTheLanguageOfItsExtensionAndWhereItIsSharedOfItsText) {
  const LanguageRegistry& r = BuiltInLanguages();
  EXPECT_EQ(r.ForSource("k.cpp", "").value()->name, "cpp");
  EXPECT_EQ(r.ForSource("k.CC", "").value()->name, "cpp");
  EXPECT_EQ(r.ForSource("k.cu", "").value()->name, "cuda");
  EXPECT_EQ(r.ForSource("m.py", "import torch\nclass ModelNew: pass\n").value()->name,
            "load_inline");
  EXPECT_EQ(r.ForSource("m.py", "import torch\nimport triton\n").value()->name, "triton");
  EXPECT_EQ(r.ForSource("m.py", "import torch, triton.language as tl\n").value()->name, "triton");
  EXPECT_EQ(r.ForSource("m.py", "from triton import jit\n").value()->name, "triton");
  // A word in a comment or a longer module name is not an import of Triton.
  EXPECT_EQ(r.ForSource("m.py", "# no triton here\nimport tritonish\n").value()->name,
            "load_inline");
}

TEST(LanguageRegistryTest, AFileNoLanguageTakesIsRefusedNamingIt) {
  const LanguageRegistry& r = BuiltInLanguages();
  auto weird = r.ForSource("dir/k.weird", "");
  ASSERT_FALSE(weird.ok());
  EXPECT_EQ(weird.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(weird.status().message(),
            "dir/k.weird: unknown extension '.weird'; a candidate is a .cpp, .cc or .cxx file "
            "(C++20), a .cu file (CUDA C++) or a .py file (KernelBench ModelNew (CUDA or C++ "
            "through load_inline) or Triton)");
  auto none = r.ForSource("k", "");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("k: no extension"), std::string::npos);
}

TEST(LanguageRegistryTest, ForFileReadsTheFileOnlyWhereItsTextDecides) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "hone-language-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.py") << "import triton\n";
  EXPECT_EQ(BuiltInLanguages().ForFile(dir / "t.py").value()->name, "triton");
  // A .cu file is not read: it need not exist for its language to be known.
  EXPECT_EQ(BuiltInLanguages().ForFile(dir / "absent.cu").value()->name, "cuda");
  EXPECT_FALSE(BuiltInLanguages().ForFile(dir / "absent.py").ok());
  std::filesystem::remove_all(dir);
}

TEST(LanguageRegistryTest, ALanguageThatClaimsNoTextTakesWhatOthersDoNotClaim) {
  LanguageRegistry r;
  r.Register(Made("plain", {".x"}));
  r.Register(Made("marked", {".x"}, [](std::string_view s) { return s.find("MARK") == 0; }));
  EXPECT_EQ(r.ForSource("a.x", "MARK it").value()->name, "marked");
  EXPECT_EQ(r.ForSource("a.x", "other").value()->name, "plain");
  LanguageRegistry only_marked;
  only_marked.Register(Made("marked", {".x"}, [](std::string_view s) { return !s.empty(); }));
  auto unclaimed = only_marked.ForSource("a.x", "");
  ASSERT_FALSE(unclaimed.ok());
  EXPECT_NE(unclaimed.status().message().find("no language takes this .x file"), std::string::npos);
}

TEST(LanguageRegistryTest, RegisteringANameAgainReplacesIt) {
  LanguageRegistry r;
  r.Register(Made("a", {".a"}));
  Language again = Made("a", {".b"});
  r.Register(again);
  ASSERT_EQ(r.all().size(), 1u);
  EXPECT_EQ(r.all()[0].source.extension(), ".b");
}

TEST(LanguageRegistryTest, FencesNameTheLanguagesThatAcceptThem) {
  const LanguageRegistry& r = BuiltInLanguages();
  std::vector<std::string> python;
  for (const Language* l : r.ForFence("python")) python.push_back(l->name);
  EXPECT_EQ(python, (std::vector<std::string>{"load_inline", "triton"}));
  std::vector<std::string> cpp;
  for (const Language* l : r.ForFence("CPP")) cpp.push_back(l->name);
  EXPECT_EQ(cpp, (std::vector<std::string>{"cpp", "cuda"}));  // a .cu file is C++ too
  EXPECT_EQ(r.Find("triton")->source.fence(), "python");
  EXPECT_EQ(r.Find("cuda")->source.fence(), "cuda");
}

TEST(LanguageRegistryTest, RulesAreListedOnceWithTheirSeverity) {
  const LanguageRegistry& r = BuiltInLanguages();
  EXPECT_TRUE(r.IsRule("file"));           // C++
  EXPECT_TRUE(r.IsRule("torch-compute"));  // ModelNew
  EXPECT_TRUE(r.IsRule("library"));        // both
  EXPECT_FALSE(r.IsRule("nope"));
  int library = 0;
  for (const LanguageRule* rule : r.AllRules()) library += rule->name == "library";
  EXPECT_EQ(library, 1);
  EXPECT_EQ(r.Find("triton")->lint.Rule("fallback")->severity, LanguageRule::Severity::kWarn);
  EXPECT_EQ(r.Find("triton")->lint.Rule("timing")->severity, LanguageRule::Severity::kReject);
}

TEST(LanguageRegistryTest, KernelDecoratorsOfEveryLanguageOnce) {
  EXPECT_EQ(BuiltInLanguages().KernelDecorators(), std::vector<std::string>{"triton.jit"});
}

TEST(LanguageRegistryTest, NativeForIsABackendsOwnLanguage) {
  EXPECT_EQ(BuiltInLanguages().NativeFor("cpu")->name, "cpp");
  EXPECT_EQ(BuiltInLanguages().NativeFor("cuda")->name, "cuda");
  EXPECT_EQ(BuiltInLanguages().NativeFor("tpu"), nullptr);
}

LintFinding Finding(const std::string& rule) { return {rule, 3, "tok", "why"}; }

TEST(JudgeFindingsTest, TheFirstRejectingFindingDecidesAndWarningsAreKept) {
  const Language& triton = *BuiltInLanguages().Find("triton");
  LintOutcome o = JudgeFindings(
      triton,
      {Finding("fallback"), Finding("timing"), Finding("network"), Finding("torch-compute")}, {});
  ASSERT_TRUE(o.rejection);
  EXPECT_EQ(o.rejection->rule, "timing");
  ASSERT_EQ(o.warnings.size(), 2u);
  EXPECT_EQ(o.warnings[0].rule, "fallback");
  EXPECT_EQ(o.warnings[1].rule, "torch-compute");
}

TEST(JudgeFindingsTest, AllowedRulesAndRulesAllowedByAnotherAreSilent) {
  const Language& triton = *BuiltInLanguages().Find("triton");
  LintOutcome o =
      JudgeFindings(triton, {Finding("timing"), Finding("torch-compute")}, {"timing", "library"});
  EXPECT_FALSE(o.rejection);
  EXPECT_TRUE(o.warnings.empty());  // 'library' allows torch compute in forward
}

TEST(JudgeFindingsTest, ARuleTheLanguageDoesNotKnowRejects) {
  LintOutcome o = JudgeFindings(*BuiltInLanguages().Find("cpp"), {Finding("made-up")}, {});
  ASSERT_TRUE(o.rejection);
  EXPECT_EQ(o.rejection->rule, "made-up");
}

TEST(BuiltInLanguagesTest, EachSaysHowItRunsWhereAndWhatItsPromptsShow) {
  const LanguageRegistry& r = BuiltInLanguages();
  const Language& cpp = *r.Find("cpp");
  EXPECT_EQ(cpp.run.runner, Runner::kNative);
  EXPECT_EQ(cpp.run.devices, std::vector<std::string>{"cpu"});
  EXPECT_EQ(cpp.prompt.rules, "backend_cpu");
  EXPECT_TRUE(cpp.lint.check);
  const Language& cuda = *r.Find("cuda");
  EXPECT_EQ(cuda.run.kernel_names, KernelNames::kBuild);
  EXPECT_TRUE(cuda.run.sanitizer);
  const Language& triton = *r.Find("triton");
  EXPECT_TRUE(triton.run.modelnew());
  EXPECT_EQ(triton.run.devices, std::vector<std::string>{"cuda"});
  EXPECT_EQ(triton.run.kernel_names, KernelNames::kSource);
  EXPECT_EQ(triton.prompt.contract, "modelnew");
  EXPECT_EQ(triton.prompt.example, "example_triton.py");
  EXPECT_FALSE(triton.lint.check);  // its findings come from the scan of the file
  EXPECT_TRUE(triton.loading.make_loader);
  EXPECT_NE(triton.hints.precision_hint.find("input_precision"), std::string::npos);
  const Language& inline_cuda = *r.Find("load_inline");
  EXPECT_EQ(inline_cuda.run.devices, (std::vector<std::string>{"cuda", "cpu"}));
}

TEST(BuiltInLanguagesTest, TritonNamesACompileAfterTheFirstCallWhenASandboxStopsAProcess) {
  const Language& triton = *BuiltInLanguages().Find("triton");
  const Language& inline_cuda = *BuiltInLanguages().Find("load_inline");
  EXPECT_NE(
      triton.hints.violation_hint(SYS_execve).find("Triton compiled a kernel after the first call"),
      std::string::npos);
  EXPECT_EQ(inline_cuda.hints.violation_hint(SYS_execve).find("Triton"), std::string::npos);
  EXPECT_NE(inline_cuda.hints.violation_hint(SYS_prlimit64).find("changed a resource limit"),
            std::string::npos);
}

TEST(EntryPointsTest, HoneForwardNeedsABody) {
  EXPECT_TRUE(DefinesHoneForward("int hone_forward(const hone_args* a) { return 0; }"));
  EXPECT_TRUE(DefinesHoneForward("HONE_EXPORT int hone_forward(\n  const hone_args* a)\n{"));
  EXPECT_FALSE(DefinesHoneForward("int hone_forward(const hone_args* a);"));
  EXPECT_FALSE(DefinesHoneForward("return hone_forward(args) + 1;"));
  EXPECT_FALSE(DefinesHoneForward("int my_hone_forward(int x) { return x; }"));
}

TEST(EntryPointsTest, ModelNewIsAClassAtTheStartOfALine) {
  EXPECT_TRUE(DefinesModelNew("import torch\nclass ModelNew(nn.Module):\n    pass\n"));
  EXPECT_TRUE(DefinesModelNew("class  ModelNew :\n"));
  EXPECT_FALSE(DefinesModelNew("# class ModelNew(nn.Module)\n"));
  EXPECT_FALSE(DefinesModelNew("class ModelNewer(nn.Module):\n"));
  EXPECT_FALSE(DefinesModelNew("x = 'class ModelNew('"));
}

TEST(EntryPointsTest, ImportsTritonSeesEveryFormOfImport) {
  EXPECT_TRUE(ImportsTriton("import triton\n"));
  EXPECT_TRUE(ImportsTriton("    import triton.language as tl\n"));
  EXPECT_TRUE(ImportsTriton("import os, triton\n"));
  EXPECT_TRUE(ImportsTriton("from triton import language as tl\n"));
  EXPECT_FALSE(ImportsTriton("import tritonclient\n"));
  EXPECT_FALSE(ImportsTriton("x = 'import triton'\n"));
}

}  // namespace
}  // namespace hone
