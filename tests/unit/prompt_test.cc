#include "search/prompt.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/fs.h"
#include "core/paths.h"
#include "lang/builtin.h"
#include "support/builtin_tasks.h"
#include "support/source_dir.h"
#include "task/task_loader.h"
#include "task/task_text.h"

namespace hone {
namespace {
// Its own namespace: this file's helpers may share a name with another
// file's in the same unity unit.
namespace prompt_test {

const Language& Cpp() { return *BuiltInLanguages().Find("cpp"); }
const Language& Cuda() { return *BuiltInLanguages().Find("cuda"); }

namespace fs = std::filesystem;

using testing::SourceDir;

std::string Slurp(const fs::path& p) { return ReadFile(p).value(); }

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

MachineInfo Cpu() {
  MachineInfo m;
  m.kind = "cpu";
  m.cpu_model = "Test CPU 9000";
  m.cores = 16;
  m.llc_bytes = size_t{32} << 20;
  m.copy_bandwidth_gbs = 123.4;
  m.fp32_gflops = 4567.0;
  m.simd = "avx512";
  return m;
}

MachineInfo Gpu() {
  MachineInfo m;
  m.kind = "gpu";
  m.cpu_model = "NVIDIA H100 80GB HBM3";
  m.cores = 132;
  m.llc_bytes = size_t{50} << 20;
  m.copy_bandwidth_gbs = 2950.0;
  m.fp32_gflops = 51234.0;
  return m;
}

class PromptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b =
        PromptBuilder::Load(SourceDir() / "prompts", SourceDir() / "include", BuiltInLanguages());
    ASSERT_TRUE(b.ok()) << b.status().message();
    builder_.emplace(std::move(b).value());
    auto t = hone::testing::LoadBuiltInTask(SourceDir() / "tasks" / "examples" / "gelu");
    ASSERT_TRUE(t.ok()) << t.status().message();
    task_ = std::move(t).value();
  }

  const PromptBuilder& b() const { return *builder_; }

  std::optional<PromptBuilder> builder_;
  Task task_;
};

TEST_F(PromptTest, ContractArgumentsTextIsWhatTaskShowPrints) {
  std::string args = ContractArgumentsText(task_);
  EXPECT_EQ(args.rfind("  hone_forward receives, in order:\n", 0), 0u) << args;
  EXPECT_TRUE(Contains(args,
                       "  case N=7:\n"
                       "    inputs[0] x            f32   [7]\n"
                       "    outputs[0] y            f32   [7]\n"))
      << args;
  EXPECT_TRUE(Contains(args, "  case N=33554432 [cuda]:\n")) << args;
}

TEST_F(PromptTest, CasesTextListsTheBackendsCasesTimedFirst) {
  std::string cpu = CasesText(task_, "cpu");
  EXPECT_EQ(
      cpu.rfind("  N=524288, 4194304 bytes (4 * 2 * N), 4718592 flops (9 * N)  <- timed\n", 0), 0u)
      << cpu;
  EXPECT_TRUE(Contains(cpu, "  N=100003,")) << cpu;
  EXPECT_FALSE(Contains(cpu, "33554432")) << cpu;
  EXPECT_EQ(CasesText(task_, "cuda").rfind("  N=33554432,", 0), 0u);
}

TEST_F(PromptTest, SystemNamesTheLanguageAndTheReplyFormat) {
  EXPECT_TRUE(Contains(b().System(Cpp()), "C++20"));
  EXPECT_TRUE(Contains(b().System(Cuda()), "CUDA C++"));
  EXPECT_TRUE(Contains(b().System(Cpp()), "exactly one fenced code block"));
}

TEST_F(PromptTest, FirstTurnCpuHasEverything) {
  std::string p = b().FirstTurn(task_, Cpp(), Cpu());
  std::string header = Slurp(SourceDir() / "include" / "hone" / "kernel.h");
  while (!header.empty() && header.back() == '\n') header.pop_back();
  EXPECT_TRUE(Contains(p, header)) << "the full kernel.h";
  std::string example = Slurp(SourceDir() / "prompts" / "example_cpu.cpp");
  while (!example.empty() && example.back() == '\n') example.pop_back();
  EXPECT_TRUE(Contains(p, example));
  EXPECT_TRUE(Contains(p, "for another task"));
  EXPECT_FALSE(Contains(p, "__global__"));  // not the CUDA example
  // The task.
  EXPECT_TRUE(Contains(p, "gelu (elementwise)"));
  EXPECT_TRUE(Contains(p, task_.description));
  EXPECT_TRUE(Contains(p, ContractArgumentsText(task_)));
  EXPECT_TRUE(Contains(p, CasesText(task_, "cpu")));
  EXPECT_TRUE(Contains(p, "tolerance for 'y': atol 1e-05, rtol 1e-05, precision 1e-05"));
  // The backend.
  EXPECT_TRUE(Contains(p, "g++ -std=c++20 -O3 -march=native -fopenmp"));
  EXPECT_TRUE(Contains(p, "OpenMP is allowed"));
  // The hardware.
  EXPECT_TRUE(Contains(p, "CPU: Test CPU 9000, 16 cores, last-level cache 32.0 MiB"));
  EXPECT_TRUE(Contains(p, "123 GB/s"));
  EXPECT_TRUE(Contains(p, "4567 GFLOP/s"));
  EXPECT_TRUE(Contains(p, "Speed of light of the timed case (N=524288)"));
  // The reply.
  EXPECT_TRUE(Contains(p, "exactly one fenced code block (```cpp"));
  EXPECT_FALSE(Contains(p, "{{")) << "every placeholder rendered";
}

TEST_F(PromptTest, FirstTurnShowsTheNativeReferenceAndItsMeasuredTime) {
  auto source = [&](const char* file) {
    std::string s = Slurp(task_.dir / file);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  };
  std::string cpu = b().FirstTurn(task_, Cpp(), Cpu());
  EXPECT_TRUE(Contains(cpu, "The reference implementation (reference.cpp)"));
  EXPECT_TRUE(Contains(cpu, source("reference.cpp")));
  EXPECT_FALSE(Contains(cpu, "Measured time of")) << "not measured: not said";
  std::string cuda = b().FirstTurn(task_, Cuda(), Gpu(), {2.5e-3, "the reference"});
  EXPECT_TRUE(Contains(cuda, source("reference.cu")));
  EXPECT_FALSE(Contains(cuda, source("reference.cpp")));
  EXPECT_TRUE(
      Contains(cuda, "Measured time of the reference on the timed case, on this machine: 2.500 ms"))
      << cuda;
}

TEST_F(PromptTest, FirstTurnCudaHasTheGpuAndItsRules) {
  std::string p = b().FirstTurn(task_, Cuda(), Gpu());
  std::string example = Slurp(SourceDir() / "prompts" / "example_cuda.cu");
  while (!example.empty() && example.back() == '\n') example.pop_back();
  EXPECT_TRUE(Contains(p, example));
  EXPECT_TRUE(Contains(p, CasesText(task_, "cuda")));
  EXPECT_TRUE(Contains(p, "GPU: NVIDIA H100 80GB HBM3, 132 SMs, L2 cache 50.0 MiB"));
  EXPECT_TRUE(Contains(p, "2950 GB/s"));
  EXPECT_TRUE(Contains(p, "51234 GFLOP/s"));
  EXPECT_TRUE(Contains(p, "sm_90a"));
  EXPECT_TRUE(Contains(p, "args->stream"));
  EXPECT_TRUE(Contains(p, "cuBLAS"));
  EXPECT_TRUE(Contains(p, "```cuda"));
  EXPECT_FALSE(Contains(p, "-fopenmp"));
}

Verdict WithStatus(VerdictStatus s, const std::string& reason) {
  Verdict v;
  v.status = s;
  v.reason = reason;
  return v;
}

TEST_F(PromptTest, FeedbackForACompileErrorShowsTheLog) {
  Verdict v = WithStatus(VerdictStatus::kCompileError, "the candidate does not compile:\n...");
  v.build.log = "cand.cpp:10:3: error: 'ouput' was not declared in this scope\n";
  std::string p = b().FeedbackTurn(v);
  EXPECT_TRUE(Contains(p, "status: compile_error"));
  EXPECT_TRUE(Contains(p, "cand.cpp:10:3: error: 'ouput' was not declared in this scope"));
  EXPECT_TRUE(Contains(p, "Fix the compile errors"));
  EXPECT_TRUE(Contains(p, "exactly one fenced code block"));

  v.build.log.clear();
  v.reason = "the candidate does not compile:\nx.cpp:1:1: error: expected ';'";
  EXPECT_TRUE(Contains(FeedbackSummary(v), "error: expected ';'"));
}

// The candidate's file is "your_file.cpp" in feedback, whatever its number
// in the run: a resumed run may replay two identical proposals the other way
// round, and its next prompts must read as the first run's did.
TEST_F(PromptTest, FeedbackNamesTheCandidateYourFileWhateverItsNumber) {
  Verdict v = WithStatus(VerdictStatus::kCompileError, "the candidate does not compile");
  v.candidate = "/runs/r/candidates/000001.cpp";
  v.build.log =
      "000001.cpp: In function 'int hone_forward(const hone_args*)':\n"
      "000001.cpp:2:55: error: invalid use of 'this' in non-member function\n";
  std::string s = FeedbackSummary(v);
  EXPECT_TRUE(Contains(s, "your_file.cpp:2:55: error: invalid use of 'this'")) << s;
  EXPECT_FALSE(Contains(s, "000001")) << s;
  Verdict w = v;
  w.candidate = "/runs/r/candidates/000000.cpp";
  w.build.log = v.build.log;
  for (size_t at; (at = w.build.log.find("000001")) != std::string::npos;)
    w.build.log.replace(at, 6, "000000");
  EXPECT_EQ(FeedbackSummary(w), s) << "the same feedback for either number";
  // A log cached by an older hone names the attempt that first had the bytes.
  w.candidate = "/runs/r/candidates/000007.cpp";
  EXPECT_EQ(FeedbackSummary(w), s) << "another attempt's file name is written the same way";
}

TEST_F(PromptTest, FeedbackCapsALongLog) {
  Verdict v = WithStatus(VerdictStatus::kCompileError, "does not compile");
  for (int i = 0; i < 500; ++i) v.build.log += "cand.cpp:1:1: error: something is wrong here\n";
  std::string s = FeedbackSummary(v);
  EXPECT_LT(s.size(), 4200u);
  EXPECT_TRUE(Contains(s, "more characters cut"));
}

TEST_F(PromptTest, FeedbackForIncorrectShowsTheMismatch) {
  const std::string mismatch =
      "output 'y': 5 of 7 elements wrong, first at [3]: expected 0.841, got nan";
  const std::string where = "N=7 seed=1 dist=uniform(-1, 1)";
  Verdict v = WithStatus(VerdictStatus::kIncorrect, mismatch + " [" + where + "]");
  v.checks.push_back({{CheckKind::kCorrect}, "N=1023 seed=1 dist=uniform(-1, 1)", true, ""});
  v.checks.push_back({{CheckKind::kCorrect}, where, false, mismatch});
  v.checks.push_back({{CheckKind::kInputsUnchanged}, where, false, "input 'x' was modified"});
  std::string p = b().FeedbackTurn(v);
  EXPECT_TRUE(Contains(p, "status: incorrect"));
  EXPECT_TRUE(Contains(p, mismatch + " [" + where + "]"));
  EXPECT_TRUE(Contains(p, "- inputs_unchanged [" + where + "]: input 'x' was modified"));
  EXPECT_EQ(p.find(mismatch), p.rfind(mismatch)) << "the reason's check is not repeated";
  EXPECT_TRUE(Contains(p, "Fix the bug"));
  EXPECT_TRUE(Contains(p, "1 case(s) were right before this one:\n- N=1023 seed=1")) << p;
  v.checks.erase(v.checks.begin());
  EXPECT_TRUE(Contains(b().FeedbackTurn(v), "no case was right before this one"));
}

TEST_F(PromptTest, FeedbackForPassedShowsTimesSpeedupAndSol) {
  Verdict v = WithStatus(VerdictStatus::kPassed, "correct on 4 shape case(s) x 3 seeds");
  v.backend = "cuda";
  v.timing.timed_case = "N=33554432 [cuda]";
  v.timing.candidate_time = TimingResult{};
  v.timing.candidate_time->summary.median = 250e-6;
  v.timing.reference_time = TimingResult{};
  v.timing.reference_time->summary.median = 1e-3;
  v.timing.speedup = 4.0;
  v.timing.sol_seconds = 200e-6;
  v.timing.sol_percent = 80.0;
  v.precision.bound = 1e-5;
  v.precision.error = 1.5e-7;
  v.build.resources = "gelu_vec4: 32 registers, 0 bytes smem, 0 bytes spill\n";
  std::string p = b().FeedbackTurn(v);
  EXPECT_TRUE(Contains(p, "status: passed"));
  EXPECT_TRUE(Contains(p, "candidate: 250.00 us median"));
  EXPECT_TRUE(Contains(p, "reference: 1.000 ms median"));
  EXPECT_TRUE(Contains(p, "speedup: 4.00x"));
  EXPECT_TRUE(Contains(p, "80.0% of it (SOL)"));
  EXPECT_TRUE(Contains(p, "relative L2 error 1.50e-07"));
  EXPECT_TRUE(Contains(p, "gelu_vec4: 32 registers"));
  EXPECT_TRUE(Contains(p, "make it faster"));
  EXPECT_TRUE(Contains(p, "launch overhead"));
  EXPECT_TRUE(Contains(p, "```cuda"));
  EXPECT_FALSE(Contains(p, "not resolved"));
  v.timing.speedup_unresolved = "its 95% interval 0.40x .. 9.50x includes 1";
  p = b().FeedbackTurn(v);
  EXPECT_TRUE(Contains(p, "this speedup is not resolved (its 95% interval 0.40x .. 9.50x"));
}

TEST_F(PromptTest, CpuFeedbackGivesNoGpuAdvice) {
  Verdict v = WithStatus(VerdictStatus::kPassed, "correct");
  v.backend = "cpu";
  std::string p = b().FeedbackTurn(v);
  EXPECT_TRUE(Contains(p, "make it faster"));
  EXPECT_TRUE(Contains(p, "SIMD"));
  for (const char* gpu : {"launch overhead", "occupancy", "coalescing", "warp", "shared memory"})
    EXPECT_FALSE(Contains(p, gpu)) << gpu << "\n" << p;
}

TEST_F(PromptTest, FeedbackForARuntimeErrorShowsWhatItPrinted) {
  Verdict v = WithStatus(VerdictStatus::kRuntimeError, "SIGSEGV (segmentation fault)");
  v.sandbox.output_head = "debug: i=12\n";
  std::string s = FeedbackSummary(v);
  EXPECT_TRUE(Contains(s, "reason: SIGSEGV"));
  EXPECT_TRUE(Contains(s, "debug: i=12"));
}

TEST_F(PromptTest, ExtractionFailedTurnExplainsAndAsksAgain) {
  Extraction cut{"", ExtractFailure::kTruncated, "the code block was not closed"};
  std::string p = b().ExtractionFailedTurn(cut);
  EXPECT_TRUE(Contains(p, "the code block was not closed"));
  EXPECT_TRUE(Contains(p, "shorter"));
  EXPECT_TRUE(Contains(p, "exactly one fenced code block"));
  Extraction none{"", ExtractFailure::kNoCode, "no code block in the reply, which begins: \"Hi\""};
  p = b().ExtractionFailedTurn(none);
  EXPECT_TRUE(Contains(p, "which begins: \"Hi\""));
  EXPECT_FALSE(Contains(p, "shorter"));
}

// Lessons from similar tasks are a section of their own, after the
// hardware, only when there are some; at most three, each one line.
TEST_F(PromptTest, LessonsFromSimilarTasksAreASectionOnlyWhenThereAreSome) {
  std::string none = b().FirstTurn(task_, Cpp(), Cpu());
  EXPECT_FALSE(Contains(none, "Lessons from similar tasks")) << none;
  EXPECT_EQ(b().FirstTurn(task_, Cpp(), Cpu(), {}, {}), none);

  std::vector<std::string> lessons = {"fixture_add (elementwise, f32; similarity 0.90): one",
                                      "two\nlines", std::string(5000, 'x'), "four"};
  std::string with = b().FirstTurn(task_, Cpp(), Cpu(), {}, lessons);
  size_t section = with.find("# Lessons from similar tasks");
  ASSERT_NE(section, std::string::npos) << with;
  EXPECT_GT(section, with.find("# The hardware"));
  EXPECT_LT(section, with.find("# Your reply"));
  EXPECT_TRUE(Contains(with, "\n- fixture_add (elementwise, f32; similarity 0.90): one\n"));
  EXPECT_TRUE(Contains(with, "\n- two lines\n")) << "one line each";
  EXPECT_FALSE(Contains(with, std::string(700, 'x'))) << "each cut";
  EXPECT_TRUE(Contains(with, std::string(500, 'x') + "..."));
  EXPECT_FALSE(Contains(with, "- four")) << "at most kMaxPromptLessons";
  EXPECT_LT(with.size() - none.size(), 2000u);
  // Without lessons the first turn is what it was before they existed.
  EXPECT_EQ(with.substr(0, section), none.substr(0, section));

  PromptAttempt a{"int a;\n", WithStatus(VerdictStatus::kPassed, "correct")};
  EXPECT_TRUE(Contains(b().EvolveTurn(task_, Cpp(), Cpu(), {a}, {}, lessons),
                       "# Lessons from similar tasks"));
}

TEST_F(PromptTest, EvolveTurnShowsParentsAndAsksForAFasterKernel) {
  PromptAttempt a{"// parent A code\nint a;\n", WithStatus(VerdictStatus::kPassed, "correct A")};
  a.verdict.timing.speedup = 1.5;
  a.verdict.timing.candidate_time = a.verdict.timing.reference_time = TimingResult{};
  PromptAttempt c{"// parent B code\nint b;\n", WithStatus(VerdictStatus::kIncorrect, "wrong B")};
  std::string two = b().EvolveTurn(task_, Cpp(), Cpu(), {a, c});
  EXPECT_TRUE(Contains(two, ContractArgumentsText(task_)));
  EXPECT_TRUE(Contains(two, "## Candidate 1\n\n```cpp\n// parent A code\nint a;\n```"));
  EXPECT_TRUE(Contains(two, "// parent B code"));
  EXPECT_TRUE(Contains(two, FeedbackSummary(a.verdict)));
  EXPECT_TRUE(Contains(two, FeedbackSummary(c.verdict)));
  EXPECT_TRUE(Contains(two, "combine their best ideas"));
  EXPECT_TRUE(Contains(two, "4567 GFLOP/s"));

  std::string one = b().EvolveTurn(task_, Cpp(), Cpu(), {a});
  EXPECT_TRUE(Contains(one, "faster than candidate 1"));
  EXPECT_FALSE(Contains(one, "combine"));
}

TEST_F(PromptTest, IdeasTurnShowsTheKernelTheIdeasTriedAndAsksForAListWithoutCode) {
  PromptAttempt k{"// the node's kernel\nint k;\n", WithStatus(VerdictStatus::kPassed, "ok")};
  IdeaHistory h;
  h.applied = {"Vectorise the loop", "Split the rows"};
  h.tried = {"Unroll by 4 -- failed: compile_error: x.cpp:1: error"};
  std::string turn = b().IdeasTurn(task_, Cpp(), Cpu(), k, h, 4);
  EXPECT_TRUE(Contains(turn, ContractArgumentsText(task_)));
  EXPECT_TRUE(Contains(turn, "```cpp\n// the node's kernel\nint k;\n```"));
  EXPECT_TRUE(Contains(turn, FeedbackSummary(k.verdict)));
  EXPECT_TRUE(Contains(turn, "- Vectorise the loop\n- Split the rows"));
  EXPECT_TRUE(Contains(turn, "- Unroll by 4 -- failed: compile_error: x.cpp:1: error"));
  EXPECT_TRUE(Contains(turn, "Propose 4 distinct ideas"));
  EXPECT_TRUE(Contains(turn, "```ideas"));
  EXPECT_TRUE(Contains(turn, "Write no code"));
  // Nothing applied or tried yet: the sections say so.
  std::string fresh = b().IdeasTurn(task_, Cpp(), Cpu(), k, {}, 3);
  EXPECT_TRUE(Contains(fresh, "on the way to this kernel\n\nnone"));
}

TEST_F(PromptTest, IdeaTurnAsksForTheKernelWithOneIdeaApplied) {
  PromptAttempt k{"// the parent\nint p;\n", WithStatus(VerdictStatus::kPassed, "ok")};
  std::string turn = b().IdeaTurn(task_, Cpp(), Cpu(), k, "Block the loop for the L2 cache");
  EXPECT_TRUE(Contains(turn, "```cpp\n// the parent\nint p;\n```"));
  EXPECT_TRUE(Contains(turn, "# The change to make\n\nBlock the loop for the L2 cache"));
  EXPECT_TRUE(Contains(turn, "exactly one fenced code block (```cpp ... ```)"));
}

// A Triton ModelNew file is asked for with the ModelNew contract, Triton's
// rules and worked example, the problem's PyTorch source, and a ```python
// fence; its feedback speaks of a Triton file.
TEST_F(PromptTest, FirstTurnInTritonShowsTheModelNewFormatAndTritonsRules) {
  const Language& triton = *BuiltInLanguages().Find("triton");
  Task t = task_;
  t.pytorch.emplace();
  t.pytorch->source = "class Model(nn.Module):\n    def forward(self, x):\n        return x * 2\n";
  std::string p = b().FirstTurn(t, triton, Gpu());
  EXPECT_TRUE(Contains(p, "a KernelBench ModelNew file")) << p;
  EXPECT_TRUE(Contains(p, "Language: Triton."));
  EXPECT_TRUE(Contains(p, "input_precision=\"ieee\""));
  EXPECT_TRUE(Contains(p, Slurp(SourceDir() / "prompts" / "example_triton.py").substr(0, 200)));
  EXPECT_TRUE(Contains(p, "return x * 2"));
  EXPECT_TRUE(Contains(p, "```python"));
  EXPECT_FALSE(Contains(p, "hone_forward")) << "the native contract is not shown\n" << p;
  EXPECT_TRUE(Contains(b().System(triton), "Triton kernels"));
}

TEST_F(PromptTest, FeedbackOnATritonCompileErrorIsTritonsMessage) {
  Verdict v = WithStatus(VerdictStatus::kCompileError,
                         "Triton could not compile a kernel: CompilationError at k.py:24 (in "
                         "forward: `k[grid](x)`): at 2:46:\n    tl.arange(0, 1000)\n    ^\n"
                         "arange's range must be a power of 2");
  v.backend = "cuda";
  v.language = "triton";
  std::string p = b().FeedbackTurn(v);
  EXPECT_TRUE(Contains(p, "arange's range must be a power of 2")) << p;
  EXPECT_TRUE(Contains(p, "Fix the compile errors above."));
  EXPECT_TRUE(Contains(p, "(```python ... ```) containing the whole new Triton file")) << p;
}

TEST(RenderTemplateTest, ReplacesOnceAndNamesMissingValues) {
  auto r = RenderTemplate("a {{x}} b {{ y }}", {{"x", "{{y}}"}, {"y", "2"}}, "t.txt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "a {{y}} b 2");  // values are not rendered again

  r = RenderTemplate("line one\n{{nope}}", {{"x", ""}}, "t.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "t.txt:2:")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "{{nope}}")) << r.status().message();

  r = RenderTemplate("{{x", {{"x", ""}}, "t.txt");
  EXPECT_FALSE(r.ok());
}

class PromptDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *MakeTempDir(fs::temp_directory_path(), "hone-prompt-test");
    fs::copy(SourceDir() / "prompts", dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Result<PromptBuilder> Load() {
    return PromptBuilder::Load(dir_, SourceDir() / "include", BuiltInLanguages());
  }

  fs::path dir_;
};

TEST_F(PromptDirTest, UnknownPlaceholderFailsLoadNamingTheFile) {
  ASSERT_TRUE(Load().ok());
  std::ofstream(dir_ / "feedback.txt") << "{{summary}}\n{{nonsense}}\n";
  auto b = Load();
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(Contains(b.status().message(), (dir_ / "feedback.txt").string() + ":2:"))
      << b.status().message();
  EXPECT_TRUE(Contains(b.status().message(), "{{nonsense}}")) << b.status().message();
}

TEST_F(PromptDirTest, MissingTemplateFailsLoadNamingTheFile) {
  fs::remove(dir_ / "evolve.txt");
  auto b = Load();
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(Contains(b.status().message(), "evolve.txt")) << b.status().message();
}

TEST_F(PromptDirTest, TheVersionCoversTheLessonsTemplate) {
  auto before = Load();
  ASSERT_TRUE(before.ok());
  std::ofstream(dir_ / "lessons.txt") << "Earlier runs taught:\n{{lessons}}\n";
  auto after = Load();
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_NE(before->version(), after->version());
  fs::remove(dir_ / "lessons.txt");
  auto missing = Load();
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Contains(missing.status().message(), "lessons.txt")) << missing.status().message();
}

TEST_F(PromptDirTest, ALanguagesMissingExampleFailsLoadNamingTheFile) {
  fs::remove(dir_ / "example_triton.py");
  auto b = Load();
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(Contains(b.status().message(), "example_triton.py")) << b.status().message();
}

TEST_F(PromptDirTest, CustomTemplatesAreUsed) {
  std::ofstream(dir_ / "system.txt") << "Custom system for {{backend}}.";
  auto b = Load();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->System(Cuda()), "Custom system for cuda.");
}

TEST_F(PromptDirTest, FindPromptsDirHonoursTheEnvironment) {
  const char* before = std::getenv("HONE_PROMPTS");
  const std::string saved = before ? before : "";
  setenv("HONE_PROMPTS", dir_.c_str(), 1);
  auto found = FindPromptsDir();
  unsetenv("HONE_PROMPTS");
  auto source = FindPromptsDir();
  if (before) setenv("HONE_PROMPTS", saved.c_str(), 1);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(*found, dir_);
  ASSERT_TRUE(source.ok()) << source.status().message();
  EXPECT_TRUE(fs::is_regular_file(*source / "system.txt"));
}

}  // namespace prompt_test
}  // namespace
}  // namespace hone
