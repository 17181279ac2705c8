#include "task/reference_kind.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "core/fs.h"
#include "lang/builtin.h"
#include "run/buffer_layout.h"
#include "run/memory_plan.h"
#include "search/prompt.h"
#include "support/builtin_tasks.h"
#include "support/source_dir.h"
#include "task/suite.h"
#include "task/task_loader.h"
#include "task/task_text.h"

// A named namespace: this file's helpers must not meet another test file's
// in a unity unit.
namespace hone::reference_kind_test {

namespace fs = std::filesystem;

// A reference kind that exists only in this test, to show that a kind is
// one object behind the seam (task/reference_kind.h): a JAX function in a
// ".jax" file, run by a service process as PyTorch modules are by the
// oracle. Nothing outside this file names it. Its facets are its own but
// for inputs, which keep the defaults.
class JaxPaths final : public ReferencePaths {
 public:
  bool ClaimsProblemPath(const fs::path& path) const override { return path.extension() == ".jax"; }
};

class JaxPrograms final : public ReferencePrograms {
 public:
  Result<ReferenceCandidate> AsCandidate(const Task&, const std::string&,
                                         const fs::path&) const override {
    return Status::Unavailable("no JAX candidates");
  }
  Result<fs::path> BaselinesCandidate(const Task&, const fs::path&) const override {
    return Status::Unavailable("no JAX baselines");
  }
};

class JaxText final : public ReferenceText {
 public:
  std::optional<ProblemListing> Listing(const Task&, const Language&) const override {
    return ProblemListing{"The operator, as JAX", "python", "def op(x):\n  return x * 2\n\n",
                          false};
  }
  std::string ArgumentsPreamble(const Task&) const override {
    return "  (the function's arguments, in order)\n";
  }
  std::string InputOrigin(const Task&, size_t i) const override {
    return "  (jax argument " + std::to_string(i) + ")";
  }
  void AddJson(const Task&, nlohmann::json& j) const override { j["jax"] = true; }
};

class JaxKind final : public ReferenceKind {
 public:
  std::string name() const override { return "jax-test"; }
  bool Claims(const Task& task) const override { return task.reference.extension() == ".jax"; }
  ReferenceSite site() const override { return ReferenceSite::kOracle; }
  bool TakesModelNew() const override { return false; }
  bool NamesItsCategory() const override { return true; }
  const ReferencePaths& paths() const override { return paths_; }
  const ReferencePrograms& programs() const override { return programs_; }
  const ReferenceText& text() const override { return text_; }

 private:
  JaxPaths paths_;
  JaxPrograms programs_;
  JaxText text_;
};

// Registered once for the whole test program; it claims only .jax tasks,
// so no other test's task meets it.
const ReferenceKind& Jax() {
  static const ReferenceKind* kind = [] {
    RegisterReferenceKind(std::make_unique<JaxKind>());
    return FindReferenceKind("jax-test");
  }();
  return *kind;
}

bool Has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string TrimmedRight(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

const Language& CppLanguage() { return *BuiltInLanguages().Find("cpp"); }
const Language& TritonLanguage() { return *BuiltInLanguages().Find("triton"); }

PromptBuilder Prompts() {
  auto b = PromptBuilder::Load(testing::SourceDir() / "prompts", testing::SourceDir() / "include",
                               BuiltInLanguages());
  return std::move(b).value();
}

std::string ContextFor(const Task& task, const Language& language) {
  MachineInfo m;
  m.kind = "cpu";
  m.cpu_model = "Test CPU";
  m.cores = 4;
  return Prompts().FirstTurn(task, language, m, ReferenceTiming{}, {});
}

TensorDecl Tensor(const std::string& name, std::vector<std::string> shape) {
  TensorDecl d;
  d.name = name;
  for (const auto& s : shape) d.shape.push_back(Expr::Parse(s).value());
  return d;
}

// y = x * w + b at N=1024 (x: 4 KiB, w and b: 4 KiB each, y: 4 KiB), as a
// native task or, with `pytorch`, as the oracle loads a KernelBench module:
// x the forward argument, w and b the model's parameters.
Task Affine(bool pytorch) {
  Task t;
  t.name = "affine";
  t.dir = "/nowhere/affine";
  t.reference = pytorch ? "/nowhere/affine.py" : "/nowhere/affine/reference.cpp";
  t.inputs = {Tensor("x", {"N"}), Tensor("w", {"N"}), Tensor("b", {"N"})};
  t.outputs = {Tensor("y", {"N"})};
  ShapeCase c;
  c.label = "N=1024";
  c.symbols["N"] = 1024;
  t.cases.push_back(c);
  if (pytorch) {
    PyTorchInfo p;
    p.file = t.reference;
    p.shapes = "N=1024";
    p.source = "class Model(nn.Module):\n    pass\n";
    p.num_forward_args = 1;
    p.input_kinds = {"forward_arg", "parameter", "parameter"};
    p.python_types = {"", "", ""};
    p.forward_peak_bytes = 8192;
    p.draw_peak_bytes = 20000;
    p.model_bytes = 8192;
    t.pytorch = p;
  }
  return t;
}

MemoryDemand DemandFor(const Task& t) {
  return DemandOf(t, ResolveCases(t, "cpu").value(), /*device=*/true, /*compat=*/false);
}

// The peak as memory_plan.cc computed it before the seam, when it tested
// `pytorch` itself: kept here to show the kinds give the same plan.
int64_t PeakBeforeTheSeam(const MemoryDemand& d, bool pytorch, int input_sets, int pool_sets,
                          bool ref64) {
  int64_t resident = d.processes * d.per_process + (d.compat ? d.model + d.forward_peak : 0) +
                     (pytorch ? d.model * (ref64 ? 3 : 1) : 0);
  int64_t one = input_sets * (d.inputs + d.outputs);
  int64_t guards = input_sets * d.guards_per_set + d.guards_fixed;
  int64_t arenas = pytorch ? one + guards : 2 * one + guards + 2 * d.inputs + d.outputs_f64;
  int64_t oracle_set = std::max(d.draw_peak, d.forward_arguments + d.forward_peak);
  int64_t verify_oracle = 0;
  if (pytorch)
    verify_oracle =
        ref64 ? std::max(oracle_set, 2 * (d.forward_arguments + d.forward_peak)) : oracle_set;
  int64_t verify = arenas + d.inputs + d.outputs + (ref64 ? d.outputs_f64 : 0) +
                   std::max(verify_oracle, 2 * d.outputs) + resident;
  int64_t per_set = d.inputs + d.outputs;
  int64_t rep = d.inputs + (pytorch ? 1 : 2) * d.outputs;
  int64_t store =
      pytorch ? pool_sets * per_set + std::max(oracle_set, rep) : (input_sets + 1) * per_set + rep;
  return std::max(verify, arenas + store + resident);
}

TEST(ReferenceKindTest, EachTaskHasTheKindOfItsReference) {
  EXPECT_EQ(KindOf(Affine(false)).name(), "native");
  EXPECT_EQ(KindOf(Affine(false)).site(), ReferenceSite::kSandbox);
  EXPECT_FALSE(KindOf(Affine(false)).TakesModelNew());
  EXPECT_EQ(KindOf(Affine(true)).name(), "pytorch");
  EXPECT_EQ(KindOf(Affine(true)).site(), ReferenceSite::kOracle);
  EXPECT_TRUE(KindOf(Affine(true)).TakesModelNew());
  EXPECT_EQ(FindReferenceKind("nonesuch"), nullptr);
}

// Before a task exists, a problem's path names its kind: what loads it
// (the oracle or not) and where a suite keeps its solutions. A suite
// folder lists the problems of every kind, the test's own among them.
TEST(ReferenceKindTest, AProblemsPathNamesItsKindForLoadingAndSuites) {
  Jax();
  fs::path dir = fs::temp_directory_path() / ("hone-kind-paths-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "add" / "solutions");
  fs::create_directories(dir / "candidates" / "relu");
  ASSERT_TRUE(WriteFileAtomic(dir / "add" / "task.toml", "name = \"add\"\n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "add" / "solutions" / "fast.cpp", "").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "relu.py", "").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "candidates" / "relu" / "mine.py", "").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "double.jax", "").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "notes.txt", "").ok());

  ASSERT_NE(KindOfProblemPath(dir / "add"), nullptr);
  EXPECT_EQ(KindOfProblemPath(dir / "add")->name(), "native");
  EXPECT_EQ(KindOfProblemPath(dir / "relu.py")->name(), "pytorch");
  EXPECT_EQ(KindOfProblemPath(dir / "double.jax"), &Jax());
  EXPECT_EQ(KindOfProblemPath(dir / "notes.txt"), nullptr);
  EXPECT_EQ(KindOfProblemPath(dir / "candidates"), nullptr);
  fs::create_directories(dir / "folder.py");  // a folder, whatever its name
  EXPECT_EQ(KindOfProblemPath(dir / "folder.py"), nullptr);
  fs::remove(dir / "folder.py");
  EXPECT_FALSE(LoadsThroughOracle(dir / "add"));
  EXPECT_TRUE(LoadsThroughOracle(dir / "relu.py"));
  EXPECT_TRUE(LoadsThroughOracle(dir / "double.jax"));  // its site is the service's
  EXPECT_FALSE(LoadsThroughOracle(dir / "notes.txt"));

  auto entries = DiscoverSuite(dir, SuiteLayout{});
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  std::vector<std::string> found;
  for (const auto& e : *entries) {
    std::string solutions;
    for (const auto& s : e.solutions) solutions += " " + s.filename().string();
    found.push_back(e.task.filename().string() + ":" + solutions);
  }
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{"add: fast.cpp", "double.jax:", "relu.py: mine.py"}));
  fs::remove_all(dir);
}

// A third kind is one object registered: the prompt, the task's text and
// its JSON ask it, with no change to the code that shows them.
TEST(ReferenceKindTest, ANewKindIsAskedByThePromptAndTheTaskText) {
  const ReferenceKind& jax = Jax();
  Task t = Affine(false);
  t.reference = "/nowhere/affine.jax";
  ASSERT_EQ(&KindOf(t), &jax);
  EXPECT_EQ(&KindOf(Affine(false)), FindReferenceKind("native"));

  const std::string context = ContextFor(t, CppLanguage());
  EXPECT_TRUE(Has(context, "\n\nThe operator, as JAX:\n```python\ndef op(x):\n  return x * 2\n```"))
      << context;
  const std::string args = ContractArgumentsText(t);
  EXPECT_TRUE(Has(args, "  (the function's arguments, in order)\n  case N=1024:\n")) << args;
  EXPECT_TRUE(Has(args, "inputs[1] w")) << args;
  EXPECT_TRUE(Has(args, "(jax argument 1)\n")) << args;
  nlohmann::json j;
  KindOf(t).text().AddJson(t, j);
  EXPECT_EQ(j, nlohmann::json({{"jax", true}}));
  EXPECT_EQ(KindOf(t).programs().BaselinesCandidate(t, "/tmp").status().message(),
            "no JAX baselines");
  // The facets it leaves alone are the defaults: every input drawn, no
  // state, solutions beside the problem.
  EXPECT_EQ(jax.inputs().ForwardArguments(t), t.inputs.size());
  EXPECT_FALSE(jax.inputs().HasState(t));
  EXPECT_EQ(jax.paths().SolutionsFolder("/s/add", "/root", "c"), fs::path("/s/add/solutions"));
}

// The prompt text the two real kinds give is what prompt.cc wrote when it
// tested Task::pytorch itself.
TEST(ReferenceKindTest, TheRealKindsGiveTheProblemTextPromptsShowed) {
  Task gelu =
      hone::testing::LoadBuiltInTask(testing::SourceDir() / "tasks" / "examples" / "gelu").value();
  const std::string source = ReadFile(gelu.reference).value();
  EXPECT_TRUE(Has(ContextFor(gelu, CppLanguage()),
                  "\n\nThe reference implementation (reference.cpp): your kernel must compute "
                  "what it computes, and is timed against it:\n```cpp\n" +
                      TrimmedRight(source) + "\n```"));

  Task t = Affine(true);
  t.pytorch->source = "class Model(nn.Module):\n    pass\n\n\n";
  EXPECT_TRUE(Has(ContextFor(t, CppLanguage()),
                  "\n\nThe operator, as PyTorch: your kernel computes Model.forward on the sizes "
                  "listed below (module-level sizes may have been scaled), with the model's "
                  "parameters and buffers passed as inputs after the forward "
                  "arguments:\n```python\nclass Model(nn.Module):\n    pass\n```"));
  EXPECT_TRUE(Has(ContextFor(t, TritonLanguage()),
                  "\n\nThe problem, a KernelBench module: ModelNew replaces its Model "
                  "(module-level sizes may have been scaled to the values below):\n```python\n"
                  "class Model(nn.Module):\n    pass\n```"));

  const std::string args = ContractArgumentsText(t);
  EXPECT_TRUE(Has(args,
                  "  (the model's forward arguments, then its state_dict() tensors in order; "
                  "sizes: N=1024)\n"))
      << args;
  EXPECT_TRUE(Has(args, "(forward argument)\n")) << args;
  EXPECT_TRUE(Has(args, "(state_dict parameter)\n")) << args;
  EXPECT_FALSE(Has(ContractArgumentsText(Affine(false)), "(forward argument)"));
  nlohmann::json j;
  KindOf(t).text().AddJson(t, j);
  EXPECT_EQ(j["pytorch"]["forward_args"], 1);
  nlohmann::json native;
  KindOf(Affine(false)).text().AddJson(Affine(false), native);
  EXPECT_TRUE(native.is_null());
}

// The demand each real kind fills and the plan made of it are those of the
// branches on Task::pytorch they replace.
TEST(ReferenceKindTest, TheRealKindsGiveTheMemoryDemandThePlanHad) {
  const int64_t kTensor = 1024 * 4;
  MemoryDemand native = DemandFor(Affine(false));
  EXPECT_EQ(native.site, ReferenceSite::kSandbox);
  EXPECT_EQ(native.inputs, 3 * kTensor);
  EXPECT_EQ(native.forward_arguments, 3 * kTensor);
  EXPECT_EQ(native.model + native.forward_peak + native.draw_peak, 0);

  MemoryDemand pytorch = DemandFor(Affine(true));
  EXPECT_EQ(pytorch.site, ReferenceSite::kOracle);
  EXPECT_EQ(pytorch.inputs, 3 * kTensor);
  EXPECT_EQ(pytorch.forward_arguments, kTensor);
  EXPECT_EQ(pytorch.forward_peak, 8192);
  EXPECT_EQ(pytorch.draw_peak, 20000);
  EXPECT_EQ(pytorch.model, 8192);

  for (const auto& [d, is_pytorch] : {std::pair{native, false}, std::pair{pytorch, true}}) {
    EXPECT_EQ(PlanMemory(d, 0).peak, PeakBeforeTheSeam(d, is_pytorch, 3, 6, true));
    MemoryPlan small = PlanMemory(d, 1);
    // The oracle's last rung keeps one timing set (the native reference has none).
    EXPECT_EQ(small.peak, PeakBeforeTheSeam(d, is_pytorch, 1, is_pytorch ? 1 : 2, false));
  }
  // The oracle's terms in the breakdown, and only the oracle's.
  const std::string oracle = PlanMemory(pytorch, 0).breakdown;
  EXPECT_TRUE(Has(oracle, " buffer slot(s) + 6 timing set(s), float64 outputs ")) << oracle;
  EXPECT_TRUE(Has(oracle, ", one forward 0.0 MB, drawing a value set 0.0 MB, model ")) << oracle;
  const std::string sandbox = PlanMemory(native, 0).breakdown;
  EXPECT_FALSE(Has(sandbox, "timing set")) << sandbox;
  EXPECT_FALSE(Has(sandbox, "one forward")) << sandbox;
  // Only the oracle's pool is said to shrink.
  EXPECT_TRUE(Has(PlanMemory(pytorch, 1).shrunk.front(), "timing pool of 1 value set"));
  EXPECT_TRUE(Has(PlanMemory(native, 1).shrunk.front(), "buffer slot(s)"));
}

}  // namespace hone::reference_kind_test
