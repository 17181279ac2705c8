// PyTorch-defined tasks on the CPU with Debian's torch: every project-written
// KernelBench-format problem in tasks/pytorch/ and every candidate listed in
// tasks/pytorch/expectations.txt (native .cpp and compat ModelNew files, right
// and wrong) gets the verdict the file names, through one oracle whose
// results are reused across candidates. Also: baselines in timed verdicts,
// size scaling, folder loading with skips, and the CLI (`hone task show`,
// `hone eval`). Skips, with the reason, where no python3 imports torch.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "compat/compat_candidate.h"
#include "compat/compat_sandbox.h"
#include "core/clock.h"
#include "core/fs.h"
#include "lang/builtin.h"
#include "measure/stats.h"
#include "process/arena.h"
#include "process/warm_pool.h"
#include "run/timing_stage.h"
#include "search/prompt.h"
#include "support/builtin_tasks.h"
#include "task/oracle_service.h"
#include "task/task_loader.h"
#include "test_env.h"

namespace hone {
namespace {
// Its own namespace: this file's helpers may share a name with another
// file's in the same unity unit.
namespace pytorch_task_test {

using namespace hone::testing;

std::filesystem::path PyTorchDir() { return SourceDir() / "tasks/pytorch"; }

// One line of tasks/pytorch/expectations.txt:
//   <problem-stem> <candidate path under candidates/> <status> [allow=library]
struct PyTorchExpectation {
  std::string problem, candidate, status;
  bool allow_library = false;
  int line = 0;
};

void PrintTo(const PyTorchExpectation& e, std::ostream* os) {
  *os << e.candidate << (e.allow_library ? " (allow=library)" : "") << " -> " << e.status;
}

std::vector<PyTorchExpectation> LoadPyTorchExpectations(const std::string& name) {
  std::ifstream in(PyTorchDir() / name);
  std::vector<PyTorchExpectation> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    PyTorchExpectation e;
    e.line = number;
    ls >> e.problem >> e.candidate >> e.status;
    for (std::string opt; ls >> opt;) {
      if (opt == "allow=library")
        e.allow_library = true;
      else
        ADD_FAILURE() << name << ":" << number << ": unknown option '" << opt << "'";
    }
    out.push_back(e);
  }
  return out;
}

OracleOptions TestOracleOptions() {
  OracleOptions o;
  if (const char* e = std::getenv("HONE_SOURCE_DIR"); e && *e)
    o.script = SourceDir() / "python" / "hone_oracle.py";
  return o;
}

// One oracle and one evaluator for the whole program.
struct Shared {
  TestEvaluator base;
  std::unique_ptr<OracleService> oracle;
  std::unique_ptr<Evaluator> evaluator;
  std::string unavailable;  // why the oracle could not start
  std::map<std::string, Task> tasks;
};

Shared& Env() {
  static Shared* s = [] {
    auto* s = new Shared{TestEvaluator::Make(), nullptr, nullptr, "", {}};
    auto oracle = OracleService::Start("cpu", TestOracleOptions());
    if (!oracle.ok()) {
      s->unavailable = oracle.status().message();
      if (oracle.status().code() != StatusCode::kUnavailable)
        ADD_FAILURE() << "oracle did not start: " << s->unavailable;
      return s;
    }
    s->oracle = std::move(*oracle);
    s->evaluator = std::make_unique<Evaluator>(s->base.evaluator->env(), s->oracle.get());
    // The catalogues' compat candidates run in warm sandboxes (the bench
    // path); WarmSandboxTest and CompatPrebuildTest's second evaluator
    // cover cold ones.
    s->evaluator->KeepWarm(true);
    s->evaluator->PrewarmCompat("cpu", EvalOptions{});
    return s;
  }();
  return *s;
}

#define SKIP_WITHOUT_ORACLE()                                                       \
  do {                                                                              \
    if (!Env().oracle) GTEST_SKIP() << "oracle unavailable: " << Env().unavailable; \
  } while (0)

const Task& TaskNamed(const std::string& problem) {
  auto it = Env().tasks.find(problem);
  if (it != Env().tasks.end()) return it->second;
  auto task = Env().oracle->Load(PyTorchDir() / (problem + ".py"), {});
  EXPECT_TRUE(task.ok()) << problem << ": " << task.status().message();
  if (!task.ok()) std::abort();
  return Env().tasks.emplace(problem, std::move(*task)).first->second;
}

// A short timed evaluation on the CPU: 0.3 s of timing budget, baselines
// included.
EvalOptions ShortCpuTiming() {
  EvalOptions o;
  o.timing.budget_seconds = 0.3;
  o.timing.warmup_seconds = 0.02;
  o.backend = "cpu";
  return o;
}

// HONE_CACHE pointed at a fresh folder while it lives, so baselines are
// timed, not read.
class OwnCache {
 public:
  explicit OwnCache(const char* name) {
    auto dir = MakeTempDir(std::filesystem::temp_directory_path(), name);
    if (!dir.ok()) std::abort();
    dir_ = *dir;
    // Builds are the test cache's: torch's precompiled extension header
    // (build/torch_pch.h, 20-50 s of a core), the compiled extensions (10-20
    // s each) and candidates. What these tests own is the rest, the
    // baselines above all; a build never changes what a verdict says.
    for (const char* builds : {"torch-extensions", "builds"}) {
      const std::filesystem::path shared = testing::BinaryDir() / "test-cache" / builds;
      std::filesystem::create_directories(shared);
      std::filesystem::create_directory_symlink(shared, dir_ / builds);
    }
    saved_ = std::getenv("HONE_CACHE") ? std::getenv("HONE_CACHE") : "";
    setenv("HONE_CACHE", dir_.c_str(), 1);
  }
  ~OwnCache() {
    setenv("HONE_CACHE", saved_.c_str(), 1);
    std::filesystem::remove_all(dir_);
  }
  OwnCache(const OwnCache&) = delete;
  OwnCache& operator=(const OwnCache&) = delete;

 private:
  std::filesystem::path dir_;
  std::string saved_;
};

class PyTorchCandidateTest : public ::testing::TestWithParam<PyTorchExpectation> {};

TEST_P(PyTorchCandidateTest, GetsTheExpectedVerdict) {
  SKIP_WITHOUT_ORACLE();
  const PyTorchExpectation& e = GetParam();
  const Task& task = TaskNamed(e.problem);
  EvalOptions o = VerifyOnly();
  if (e.allow_library) o.lint_allow.insert("library");
  o.backend = "cpu";
  auto v = Env().evaluator->Evaluate(task, PyTorchDir() / "candidates" / e.candidate, o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  std::cout << "[pytorch] " << e.candidate << (e.allow_library ? " (allow=library)" : "") << ": "
            << StatusName(v->status) << ": " << v->reason.substr(0, 160) << "\n";
  EXPECT_EQ(std::string(StatusName(v->status)), e.status)
      << "expectations.txt:" << e.line << ": " << v->reason << "\noutput:\n"
      << v->sandbox.output_head.substr(0, 3000);
  if (e.status == "rejected" && e.candidate.find("compat_torch.py") != std::string::npos) {
    EXPECT_NE(v->reason.find("no kernel of its own"), std::string::npos) << v->reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, PyTorchCandidateTest,
                         ::testing::ValuesIn(LoadPyTorchExpectations("expectations.txt")),
                         [](const ::testing::TestParamInfo<PyTorchExpectation>& info) {
                           std::string n = info.param.candidate + "_" + info.param.status +
                                           (info.param.allow_library ? "_library" : "");
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The compat part of the adversarial catalogue (tests/adversarial/compat/):
// ModelNew files that cheat or break rules, with the verdicts
// tests/adversarial/compat_expectations.txt names. Timed, so that work moved
// out of calls and caches meet the timing checks too.
class CompatCatalogueTest : public ::testing::TestWithParam<Expectation> {};

TEST_P(CompatCatalogueTest, GetsTheExpectedVerdict) {
  SKIP_WITHOUT_ORACLE();
  const Expectation& e = GetParam();
  const Task& task = TaskNamed(e.task.empty() ? "elementwise_relu_scale" : e.task);
  EvalOptions o = ShortCpuTiming();
  o.lint_allow = e.allow;
  auto v = Env().evaluator->Evaluate(task, SourceDir() / "tests/adversarial/compat" / e.file, o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  std::cout << "[verdict] compat/" << e.file << ": " << StatusName(v->status) << ": "
            << v->reason.substr(0, 200) << "\n";
  EXPECT_EQ(std::string(StatusName(v->status)), e.status)
      << "compat_expectations.txt:" << e.line << ": " << v->reason << "\noutput:\n"
      << v->sandbox.output_head.substr(0, 2000);
  EXPECT_TRUE(ReasonMatches(v->reason, e.reason))
      << "reason '" << v->reason << "' does not mention '" << e.reason << "'";
}

// A candidate that learns the timing pool (it skips the work of new inputs
// only once it has seen every static sibling twice, so none can catch it)
// meets fresh siblings, made by the oracle now and then for a re-check and
// shown once: it is caught whenever it starts. Without them it passed 3 of
// 3 runs; with them it was caught in 8 of 8. Timed long enough for many
// re-checks (the catalogue's short timing may end before it has learnt the
// pool, when its pass is an honest one).
TEST(PyTorchTaskTest, ACandidateThatLearnsTheTimingPoolBeforeSkippingIsCaught) {
  SKIP_WITHOUT_ORACLE();
  EvalOptions o = ShortCpuTiming();
  o.timing.budget_seconds = 1.5;
  // Never precise: a quiet machine reached the target in 26 repetitions,
  // before the candidate had learnt the pool, and its pass was honest.
  o.timing.target_rse = 0;
  o.flush = FlushMode::kNone;
  o.lint_allow = {"library"};
  auto v = Env().evaluator->Evaluate(
      TaskNamed("elementwise_relu_scale"),
      SourceDir() / "tests/adversarial/compat/skip_when_scaled_patient.py", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kIncorrect) << v->reason;
  EXPECT_NE(v->reason.find("timed call"), std::string::npos) << v->reason;
}

// elementwise_relu_scale's load_inline CPU candidate, copied into `dir`
// with new bytes in its C++ source, so that its extension is in no build
// cache; empty on failure.
std::filesystem::path UncachedCompatCandidate(const std::filesystem::path& dir) {
  auto text = ReadFile(PyTorchDir() / "candidates/elementwise_relu_scale/compat_inline_cpu.py");
  const std::string marker = "#include <torch/extension.h>";
  if (!text.ok() || text->find(marker) == std::string::npos) return {};
  std::string source = *text;
  source.replace(source.find(marker), marker.size(), marker + "\n// " + dir.filename().string());
  const std::filesystem::path candidate = dir / "compat_inline_cpu.py";
  return WriteFileAtomic(candidate, source).ok() ? candidate : std::filesystem::path();
}

// A ModelNew whose extension compiles, on a problem whose baselines are not
// cached: the baselines are timed meanwhile (EvalOptions::
// baselines_during_build, always here; on its own only where calls are
// held, a GPU). On the CPU the calls are host-bound, timed beside a compile:
// they are not kept, and the candidate's evaluation times them again after
// its own timing, as without the early evaluation.
TEST(PyTorchTaskTest, BaselinesAreTimedWhileTheCandidateCompiles) {
  SKIP_WITHOUT_ORACLE();
  OwnCache cache("hone-baselines-beside-build");
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-beside-build");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  const std::filesystem::path candidate = UncachedCompatCandidate(*dir);
  ASSERT_FALSE(candidate.empty());
  EvalOptions o = ShortCpuTiming();
  o.baselines_during_build = EvalOptions::BaselinesDuringBuild::kAlways;
  std::string early;  // the early evaluation's stages, as its progress says them
  auto v = Env().evaluator->Evaluate(TaskNamed("elementwise_relu_scale"), candidate, o,
                                     [&](const std::string& stage) {
                                       if (stage.starts_with("baselines, while"))
                                         early += stage + "\n";
                                     });
  std::filesystem::remove_all(*dir);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  bool beside = false;
  for (const auto& [stage, seconds] : v->stage_seconds) beside |= stage == "prebuild_and_baselines";
  EXPECT_TRUE(beside) << "no early stage";
  // The Model is the reference: timed (its timing makes the baselines' pool
  // of value sets), never verified.
  EXPECT_NE(early.find("compiles: time "), std::string::npos) << early;
  EXPECT_EQ(early.find("compiles: verify"), std::string::npos) << early;
  std::string notes;
  for (const Note& n : v->notes) notes += n.text + "\n";
  EXPECT_NE(notes.find("baselines were timed while the candidate's extensions compiled"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("not kept: their calls are host-bound"), std::string::npos) << notes;
  // Timed again after the candidate: the speedup has its baseline.
  EXPECT_TRUE(v->timing.reference_time.has_value()) << notes;
  EXPECT_GT(v->timing.speedup, 0);
}

// A ModelNew's builds started before its problem is loaded (`hone eval`, a
// worker's job: Evaluator::StartCompatBuild) go on while the caller does
// other work; the evaluation then waits only for what is left of them, and
// counts them as its own.
TEST(PyTorchTaskTest, BuildsStartedBeforeTheEvaluationOverlapTheCallersWork) {
  SKIP_WITHOUT_ORACLE();
  OwnCache cache("hone-early-build");
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-early-build");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  const std::filesystem::path candidate = UncachedCompatCandidate(*dir);
  ASSERT_FALSE(candidate.empty());
  auto start = std::chrono::steady_clock::now();
  Env().evaluator->StartCompatBuild(candidate);
  const double started = SecondsSince(start);
  // The caller's own work (the problem's load, in `hone eval`).
  constexpr double kCallersWork = 3.0;
  std::this_thread::sleep_for(std::chrono::duration<double>(kCallersWork));
  EvalOptions o = ShortCpuTiming();
  o.baselines_during_build = EvalOptions::BaselinesDuringBuild::kNever;
  auto v = Env().evaluator->Evaluate(TaskNamed("elementwise_relu_scale"), candidate, o);
  std::filesystem::remove_all(*dir);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  EXPECT_FALSE(v->build.cached) << "the extension was compiled, not found";
  // Start returned with the compile under way, not after it, and the
  // evaluation's prebuild stage waited for less than the whole compile.
  EXPECT_LT(started, v->build.seconds);
  double waited = -1;
  for (const auto& [stage, seconds] : v->stage_seconds)
    if (stage == "prebuild") waited = seconds;
  ASSERT_GE(waited, 0) << "no prebuild stage";
  EXPECT_LT(waited, v->build.seconds - kCallersWork / 2)
      << "the evaluation compiled it itself (" << v->build.seconds << " s of compiling)";
}

// A set used once (a fresh sibling of the timing pool) leaves nothing kept:
// Forget drops its files and its entry, so asking again generates it again,
// while a set not forgotten is reused.
TEST(PyTorchTaskTest, AForgottenSetIsGeneratedAgain) {
  SKIP_WITHOUT_ORACLE();
  OracleService& oracle = *Env().oracle;
  const Task& task = TaskNamed("elementwise_relu_scale");
  ASSERT_TRUE(oracle.Set(task, 424242, 0, 0.75).ok());
  const int64_t generated = oracle.cost().generated;
  ASSERT_TRUE(oracle.Set(task, 424242, 0, 0.75).ok());
  EXPECT_EQ(oracle.cost().generated, generated) << "kept: reused";
  oracle.Forget(task, 424242, 0, 0.75);
  ASSERT_TRUE(oracle.Set(task, 424242, 0, 0.75).ok());
  EXPECT_EQ(oracle.cost().generated, generated + 1) << "forgotten: generated again";
}

// The right value in the wrong shape is a wrong answer, as KernelBench
// counts it ("Output shape mismatch"), not a runtime error.
TEST(PyTorchTaskTest, AScalarReturnedAsOneElementIsIncorrect) {
  SKIP_WITHOUT_ORACLE();
  auto task =
      Env().oracle->Load(SourceDir() / "tests/adversarial/compat/problems/scalar_mean.py", {});
  ASSERT_TRUE(task.ok()) << task.status().message();
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  o.lint_allow.insert("library");
  auto v = Env().evaluator->Evaluate(
      *task, SourceDir() / "tests/adversarial/compat/one_element_for_a_scalar.py", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kIncorrect) << v->reason;
  EXPECT_NE(v->reason.find("ModelNew returned shape (1,), the task's output is ()"),
            std::string::npos)
      << v->reason;
}

// A ModelNew's load_inline is built by hone outside the sandbox, once: a
// second evaluator (a later hone process) finds it in the cache.
TEST(CompatPrebuildTest, ExtensionsAreBuiltOutsideTheSandboxAndCached) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("elementwise_relu_scale");
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  fs::path file = SourceDir() / "tests/adversarial/compat/load_inline_cpp.py";
  auto first = Env().evaluator->Evaluate(task, file, o);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->status, VerdictStatus::kPassed) << first->reason;
  EXPECT_NE(first->build.log.find("load_inline('hone_compat_relu_scale_cpp') at line 19"),
            std::string::npos)
      << first->build.log;
  Evaluator later(Env().evaluator->env(), Env().oracle.get());
  auto again = later.Evaluate(task, file, o);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->status, VerdictStatus::kPassed) << again->reason;
  EXPECT_TRUE(again->build.cached) << again->build.log;
  EXPECT_NE(again->build.log.find("built earlier (cache)"), std::string::npos) << again->build.log;
  double prebuild = 0;
  for (const auto& [stage, seconds] : again->stage_seconds)
    if (stage == "prebuild") prebuild = seconds;
  std::cout << "[timing] cached prebuild " << prebuild << " s\n";
  EXPECT_LT(prebuild, 10.0);  // a scan and a cache hit; generous for a loaded CI machine
}

INSTANTIATE_TEST_SUITE_P(Compat, CompatCatalogueTest,
                         ::testing::ValuesIn(LoadExpectations(
                             SourceDir() / "tests/adversarial/compat_expectations.txt")),
                         [](const ::testing::TestParamInfo<Expectation>& info) {
                           std::string n = info.param.file;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// A compat sandbox that comes warm (Python and torch imported before the
// evaluation, process/warm_pool.h) gives the verdict a cold one gives.
TEST(WarmSandboxTest, WarmAndColdSandboxesGiveTheSameVerdict) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("elementwise_relu_scale");
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  fs::path file = SourceDir() / "tests/adversarial/compat/load_inline_cpp.py";
  Evaluator warm(Env().evaluator->env(), Env().oracle.get());
  warm.PrewarmCompat("cpu", o);
  auto w = warm.Evaluate(task, file, o);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->status, VerdictStatus::kPassed) << w->reason << "\n" << w->sandbox.output_head;
  EXPECT_TRUE(w->sandbox.warm) << ::testing::PrintToString(w->notes);
  // On the CPU warm sandboxes fork from a zygote (sandbox/zygote.h), so a
  // later evaluation, which no sandbox was kept warm for (no KeepWarm), gets
  // one forked when it asks.
  auto second = warm.Evaluate(task, file, o);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->sandbox.warm);
  EXPECT_EQ(second->status, VerdictStatus::kPassed) << second->reason;
  Evaluator timed(Env().evaluator->env(), Env().oracle.get());
  EvalOptions t = o;
  t.time = true;
  timed.PrewarmCompat("cpu", t);
  for (int i = 0; i < 3; ++i) {
    auto v = timed.Evaluate(task, file, o);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_TRUE(v->sandbox.warm) << "evaluation " << i;
  }

  Evaluator cold(Env().evaluator->env(), Env().oracle.get());
  auto c = cold.Evaluate(task, file, o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->status, VerdictStatus::kPassed) << c->reason;
  EXPECT_FALSE(c->sandbox.warm);
}

// The config of a CPU compat sandbox (hone's own runner), warmed by a zygote.
SandboxConfig ZygoteConfig() {
  auto rt = CompatRuntimeFromHello(Env().oracle->hello(), Env().oracle->python_dir());
  EXPECT_TRUE(rt.ok()) << rt.status().message();
  SandboxConfig c;
  c.executable = BinaryDir() / "hone-sandbox";
  c.scratch_root = TestCache() / "scratch";
  EXPECT_TRUE(AddCompat(c, *rt).ok());
  c.zygote = true;
  c.library = c.python_runner;  // never loaded: no sandbox here is awaited
  return c;
}

// A zygote imports once and forks the pool's warm sandboxes: each is this
// process's own child (it is reaped and signalled like a spawned one), in
// a process group and a scratch folder of its own.
TEST(WarmSandboxTest, AZygoteForksSandboxesThatAreTheWorkersOwnChildren) {
  SKIP_WITHOUT_ORACLE();
  SandboxConfig c = ZygoteConfig();
  WarmPool pool(true, 2, /*idle_priority=*/false);
  pool.Prepare(c);
  const pid_t zygote = pool.zygote_pid();
  ASSERT_GT(zygote, 0);
  auto arena = Env().base.cpu().CreateArena(4096);
  ASSERT_TRUE(arena.ok());
  auto a = pool.Take(c, **arena, false);
  auto b = pool.Take(c, **arena, false);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(pool.zygote_failure(), "");
  for (const auto* sp : {a.get(), b.get()}) {
    EXPECT_NE(sp->pid(), zygote);
    EXPECT_EQ(ReadProcStat(sp->pid()).parent, getpid());
    EXPECT_EQ(getpgid(sp->pid()), sp->pid());
  }
  EXPECT_NE(a->scratch(), b->scratch());
  EXPECT_EQ(pool.zygote_pid(), zygote) << "the zygote stays for the next";
  // A zygote that is gone is let go: the pool starts sandboxes one by one.
  kill(zygote, SIGKILL);
  auto c3 = pool.Take(c, **arena, false);
  EXPECT_NE(c3, nullptr);
  EXPECT_EQ(pool.zygote_pid(), 0);
  EXPECT_NE(pool.zygote_failure().find("the zygote forked no sandbox"), std::string::npos)
      << pool.zygote_failure();
  EXPECT_TRUE(pool.enabled()) << pool.disabled_reason();
}

// A forked sandbox's environment names its own scratch folder, not the
// zygote's (python/hone_compat.py's hone_compat_after_fork): this ModelNew
// refuses to load otherwise, and two evaluations in a row (two forks) pass.
TEST(WarmSandboxTest, AForkedSandboxsEnvironmentNamesItsOwnFolder) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("elementwise_relu_scale");
  fs::path file = TestCache() / ("zygote-env-" + std::to_string(getpid()) + ".py");
  std::ofstream(file) << R"(import os
import tempfile
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        here = os.getcwd()
        named = {k: os.environ.get(k, "") for k in ("HOME", "TMPDIR", "TORCH_EXTENSIONS_DIR")}
        named["tempfile"] = tempfile.gettempdir()
        wrong = {k: v for k, v in named.items() if not v.startswith(here)}
        if wrong:
            raise RuntimeError("not in %s: %s" % (here, wrong))

    def forward(self, x):
        return torch.relu(x) * 2.0
)";
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  o.lint_allow.insert("library");
  Evaluator evaluator(Env().evaluator->env(), Env().oracle.get());
  evaluator.PrewarmCompat("cpu", o);
  for (int i = 0; i < 2; ++i) {
    auto v = evaluator.Evaluate(task, file, o);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason << "\n" << v->sandbox.output_head;
    EXPECT_TRUE(v->sandbox.warm) << "evaluation " << i;
  }
  fs::remove(file);
}

// `hone eval`'s order: the oracle launched without waiting, a sandbox
// warmed at once from the interpreter's runtime probe (while the oracle
// still imports torch), then the task loaded. The candidate takes that
// sandbox: the probe's runtime is the hello's.
TEST(WarmSandboxTest, ASandboxWarmedBeforeTheOraclesHelloIsTaken) {
  SKIP_WITHOUT_ORACLE();
  auto oracle = OracleService::Launch("cpu", TestOracleOptions());
  ASSERT_TRUE(oracle.ok()) << oracle.status().message();
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  Evaluator evaluator(Env().evaluator->env(), oracle->get());
  evaluator.PrewarmCompat("cpu", o);
  auto task = (*oracle)->Load(PyTorchDir() / "elementwise_relu_scale.py", {});
  ASSERT_TRUE(task.ok()) << task.status().message();
  auto v =
      evaluator.Evaluate(*task, SourceDir() / "tests/adversarial/compat/load_inline_cpp.py", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason << "\n" << v->sandbox.output_head;
  EXPECT_TRUE(v->sandbox.warm) << ::testing::PrintToString(v->notes);
  EXPECT_GT((*oracle)->cost().start_seconds, 0);
}

// A launch that fails (no interpreter with torch) is the Status of the
// first call that needs the oracle, with the start's own words.
TEST(OracleServiceLaunch, AFailedStartIsTheFirstCallsStatus) {
  OracleOptions o = TestOracleOptions();
  o.python = "/nonexistent/bin/python3";
  auto oracle = OracleService::Launch("cpu", o);
  ASSERT_TRUE(oracle.ok()) << oracle.status().message();
  EXPECT_TRUE((*oracle)->runtime_hint().is_null());
  auto task = (*oracle)->Load(PyTorchDir() / "elementwise_relu_scale.py", {});
  ASSERT_FALSE(task.ok());
  EXPECT_EQ(task.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(task.status().message().find("/nonexistent/bin/python3"), std::string::npos)
      << task.status().message();
  EXPECT_TRUE((*oracle)->hello().is_null());
}

// A sandbox whose warm-up fails says why before its hand-off, so its
// candidate never ran: the evaluator starts it cold and turns warming off.
class WarmPoolFailureTest : public ::testing::Test {
 protected:
  SandboxConfig ConfigWithRunner(const std::string& runner_source) {
    runner_ = TestCache() / ("warm-runner-" + std::to_string(getpid()) + ".py");
    std::ofstream(runner_) << runner_source;
    auto rt = CompatRuntimeFromHello(Env().oracle->hello(), Env().oracle->python_dir());
    EXPECT_TRUE(rt.ok()) << rt.status().message();
    SandboxConfig c;
    c.executable = BinaryDir() / "hone-sandbox";
    c.scratch_root = TestCache() / "scratch";
    c.compat = true;
    c.limit_address_space = false;
    c.extra_env = CompatEnvironment(*rt);
    c.python_library = rt->libpython;
    c.python_runner = runner_;
    c.library = runner_;  // never loaded: the warm-up fails first
    return c;
  }
  // The sandbox taken from the pool fails before its hand-off (its
  // candidate never ran) and says why; a pool settling at normal priority
  // meets the same failure and turns itself off.
  void ExpectWarmingFails(const SandboxConfig& c, const std::string& why) {
    auto arena = Env().base.cpu().CreateArena(4096);
    ASSERT_TRUE(arena.ok());
    WarmPool pool(true, 1);
    pool.Prepare(c);
    auto sp = pool.Take(c, **arena, false);
    ASSERT_NE(sp, nullptr);
    CallOutcome o = sp->AwaitReady(std::chrono::seconds(60));
    EXPECT_FALSE(o.ok());
    EXPECT_TRUE(sp->warm_failed());
    EXPECT_NE(o.detail.find(why), std::string::npos) << o.detail;

    WarmPool settling(true, 1, /*idle_priority=*/false);
    settling.Prepare(c);
    settling.Settle(std::chrono::seconds(60));
    EXPECT_FALSE(settling.enabled());
    EXPECT_NE(settling.disabled_reason().find(why), std::string::npos)
        << settling.disabled_reason();
    settling.Prepare(c);  // stays off
    EXPECT_EQ(settling.Take(c, **arena, true), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove(runner_, ec);
  }
  fs::path runner_;
};

TEST_F(WarmPoolFailureTest, ARunnerThatRaisesFailsBeforeTheHandoff) {
  SKIP_WITHOUT_ORACLE();
  ExpectWarmingFails(ConfigWithRunner("def hone_compat_prewarm(runner_dir=None):\n"
                                      "    raise RuntimeError('no torch today')\n"),
                     "no torch today");
}

// Landlock confines the thread that applies it and its later children: a
// thread started while warming would escape it.
TEST_F(WarmPoolFailureTest, AThreadStartedWhileWarmingFailsTheStart) {
  SKIP_WITHOUT_ORACLE();
  ExpectWarmingFails(ConfigWithRunner("import threading, time\n"
                                      "def hone_compat_prewarm(runner_dir=None):\n"
                                      "    threading.Thread(target=time.sleep, args=(30,),\n"
                                      "                     daemon=True).start()\n"),
                     "threads besides the CUDA driver's after importing");
}

// The state letter of /proc/PID/stat: 'T' while stopped.
char ProcessState(pid_t pid) { return ReadProcStat(pid).state; }

// Signals arrive asynchronously: whether `pid` is stopped once they have.
// A SCHED_IDLE process acts on SIGSTOP only when it next runs, which on a
// busy 2-core machine took over a second: up to 10 s.
bool Stopped(pid_t pid, bool expected) {
  for (int i = 0; i < 2000 && (ProcessState(pid) == 'T') != expected; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return ProcessState(pid) == 'T';
}

// Warming under SCHED_IDLE still slows host-bound code on the other
// threads of a core, so a host-bound measurement pauses it and the next
// start resumes it.
TEST_F(WarmPoolFailureTest, SandboxesWarmingAtIdlePriorityPauseForAHostBoundMeasurement) {
  SKIP_WITHOUT_ORACLE();
  SandboxConfig c = ConfigWithRunner(
      "import time\n"
      "def hone_compat_prewarm(runner_dir=None):\n"
      "    time.sleep(60)\n");
  auto sp = SandboxProcess::SpawnWarm(c, /*idle_priority=*/true);
  ASSERT_TRUE(sp.ok()) << sp.status().message();
  if (geteuid() == 0) {
    EXPECT_EQ(sched_getscheduler((*sp)->pid()), SCHED_IDLE);
  }
  (*sp)->Pause();
  EXPECT_TRUE((*sp)->paused());
  EXPECT_TRUE(Stopped((*sp)->pid(), true));
  (*sp)->Resume();
  EXPECT_FALSE((*sp)->paused());
  EXPECT_FALSE(Stopped((*sp)->pid(), false));

  WarmPool pool(true, 2, /*idle_priority=*/true);
  pool.Prepare(c);
  pool.Settle(std::chrono::seconds(1));
  EXPECT_EQ(pool.paused(), 0) << "idle-class warming waits for no measurement but a host-bound one";
  pool.Pause();
  EXPECT_EQ(pool.paused(), 2) << "both still warming";
  pool.Resume();
  EXPECT_EQ(pool.paused(), 0);
  pool.Pause();
  auto arena = Env().base.cpu().CreateArena(4096);
  ASSERT_TRUE(arena.ok());
  auto taken = pool.Take(c, **arena, false);
  ASSERT_NE(taken, nullptr);
  EXPECT_FALSE(taken->paused()) << "a sandbox handed off warms on";
  EXPECT_FALSE(Stopped(taken->pid(), false));
  // ... at normal priority: under SCHED_IDLE a busy machine would starve it.
  if (geteuid() == 0) {
    EXPECT_EQ(sched_getscheduler(taken->pid()), SCHED_OTHER);
  }
  EXPECT_EQ(pool.paused(), 1);
}

// An untimed evaluation warms only its candidate's sandbox
// (Evaluator::PrewarmCompat): the pool starts as many as asked, up to its
// capacity, and a later Prepare tops it up.
TEST_F(WarmPoolFailureTest, PrepareStartsAsManyAsAskedUpToTheCapacity) {
  SKIP_WITHOUT_ORACLE();
  SandboxConfig c = ConfigWithRunner(
      "import time\n"
      "def hone_compat_prewarm(runner_dir=None):\n"
      "    time.sleep(60)\n");
  WarmPool pool(true, 2, /*idle_priority=*/true);
  pool.Prepare(c, 1);
  pool.Pause();
  EXPECT_EQ(pool.paused(), 1);
  pool.Prepare(c, 5);
  pool.Pause();
  EXPECT_EQ(pool.paused(), 2) << "topped up to the capacity, not past it";
  pool.Prepare(c);
  pool.Pause();
  EXPECT_EQ(pool.paused(), 2);
}

TEST_F(WarmPoolFailureTest, AConfigThatDiffersIsNotServedWarm) {
  SKIP_WITHOUT_ORACLE();
  SandboxConfig c = ConfigWithRunner("def hone_compat_prewarm(runner_dir=None):\n    pass\n");
  WarmPool pool;
  pool.Prepare(c);
  SandboxConfig other = c;
  other.threads = 3;
  auto arena = Env().base.cpu().CreateArena(4096);
  ASSERT_TRUE(arena.ok());
  EXPECT_EQ(pool.Take(other, **arena, false), nullptr);
  EXPECT_TRUE(pool.enabled()) << pool.disabled_reason();
  other.compat = false;
  EXPECT_EQ(WarmKey(other), "");
}

// The memory plan asks the oracle for its cached device memory back before
// it gives up on a full-size problem; on the CPU there is nothing to return.
TEST(PyTorchTaskTest, OracleReleasesItsDeviceMemoryOnRequest) {
  SKIP_WITHOUT_ORACLE();
  Status st = Env().oracle->ReleaseDeviceMemory();
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(PyTorchTaskTest, ContractIsForwardArgumentsThenStateDict) {
  SKIP_WITHOUT_ORACLE();
  const Task& conv = TaskNamed("conv2d");
  ASSERT_TRUE(conv.pytorch);
  EXPECT_EQ(conv.pytorch->num_forward_args, 1);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.inputs[1].name, "conv.weight");
  EXPECT_EQ(conv.pytorch->input_kinds[1], "parameter");
  const Task& buffer = TaskNamed("buffer_affine");
  EXPECT_EQ(buffer.pytorch->input_kinds.back(), "buffer");
  EXPECT_TRUE(conv.pytorch->HasState());
  EXPECT_TRUE(buffer.pytorch->HasState());
  EXPECT_FALSE(TaskNamed("softmax").pytorch->HasState());
  const Task& number = TaskNamed("scale_by_number");
  EXPECT_EQ(number.pytorch->python_types[1], "float");
  EXPECT_EQ(number.pytorch->python_values[1], "0.5");
  EXPECT_EQ(TaskNamed("tuple_output").outputs.size(), 2u);
}

TEST(PyTorchTaskTest, TimedVerdictCarriesTheBaselines) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("softmax");
  EvalOptions o = ShortCpuTiming();
  auto v = Env().evaluator->Evaluate(task, PyTorchDir() / "candidates/softmax/right.cpp", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  EXPECT_EQ(v->timing.baseline, "torch eager");
  ASSERT_TRUE(v->timing.reference_time && v->timing.candidate_time);
  EXPECT_GT(v->timing.reference_time->summary.median, 0);
  // Timed beside the eager Model (host-bound calls of 20 us or more, as a
  // slower machine's are), the speedup is the median of the paired ratios.
  EXPECT_NEAR(v->timing.speedup,
              v->timing.speedup_pairs.empty() ? v->timing.reference_time->summary.median /
                                                    v->timing.candidate_time->summary.median
                                              : Summarize(v->timing.speedup_pairs).median,
              1e-9);
  // Debian's torch 1.13 has no torch.compile; a newer one gives a timing.
  EXPECT_TRUE(v->timing.compile_time.has_value() || !v->timing.compile_unavailable.empty());
  EXPECT_FALSE(v->shapes.empty());
  EXPECT_GT(v->timing.sol_seconds, 0);  // the footprint in bytes over the machine's bandwidth
}

// A model with state gets it in one unheld call before its baseline is
// timed (pytorch/baseline_stage.h); softmax above has none and makes no such call.
TEST(PyTorchTaskTest, ABaselineWithStateIsTimed) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("conv2d");
  EvalOptions o = ShortCpuTiming();
  o.compile_baseline = false;
  auto v = Env().evaluator->Evaluate(task, PyTorchDir() / "candidates/conv2d/right.cpp", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->timing.reference_time.has_value()) << ::testing::PrintToString(v->notes);
  EXPECT_GT(v->timing.reference_time->summary.median, 0);
}

// Short calls: the candidate and its eager baseline are each timed in
// several sandbox processes and their samples pooled (pytorch/timing_processes.h).
TEST(PyTorchTaskTest, ShortCallsAreTimedInSeveralProcesses) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("elementwise_relu_scale");
  std::optional<OwnCache> cache;
  cache.emplace("hone-processes-test");
  EvalOptions o = ShortCpuTiming();
  o.timing.budget_seconds = 0.2;
  o.compile_baseline = false;
  o.short_call_seconds = 10;   // every call here is short, under half of it too
  o.short_call_processes = 2;  // so 4 processes a side
  auto file = SourceDir() / "tests/adversarial/compat/load_inline_cpp.py";
  auto v = Env().evaluator->Evaluate(task, file, o);
  o.short_call_processes = 1;
  auto once = Env().evaluator->Evaluate(task, file, o);
  o.short_call_processes = 2;
  auto again = Env().evaluator->Evaluate(task, file, o);
  cache.reset();
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->timing.candidate_time && v->timing.reference_time);
  auto notes = ::testing::PrintToString(v->notes);
  EXPECT_NE(notes.find("the candidate timed in 4 sandbox processes"), std::string::npos) << notes;
  EXPECT_NE(notes.find("Model timed in 4 sandbox processes"), std::string::npos) << notes;
  // The candidate's calls were short, so the baseline's extra processes
  // loaded beside the candidate's rather than after them.
  EXPECT_NE(notes.find("3 of them loaded beside the candidate's"), std::string::npos) << notes;
  int stopped = 0;
  for (const Note& n : v->notes) stopped += n.text.rfind("timing stopped:", 0) == 0;
  EXPECT_EQ(stopped, 1) << "one note of how timing stopped, not one per process: " << notes;
  EXPECT_NEAR(v->timing.speedup,
              v->timing.reference_time->summary.median / v->timing.candidate_time->summary.median,
              1e-9);

  ASSERT_TRUE(once.ok()) << once.status().message();
  ASSERT_EQ(once->status, VerdictStatus::kPassed) << once->reason;
  EXPECT_EQ(::testing::PrintToString(once->notes).find("the candidate timed in"),
            std::string::npos);
  // The baselines the first evaluation cached (timed in 4) served the second.
  EXPECT_EQ(once->timing.reference_time->samples.size(), v->timing.reference_time->samples.size());

  // The cached baseline's calls are short, so the candidate's other
  // processes were started with its first and loaded while it was checked.
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(again->status, VerdictStatus::kPassed) << again->reason;
  auto again_notes = ::testing::PrintToString(again->notes);
  EXPECT_NE(again_notes.find("the candidate timed in 4 sandbox processes"), std::string::npos)
      << again_notes;
  EXPECT_NE(again_notes.find("3 of them loaded while it was checked"), std::string::npos)
      << again_notes;
  EXPECT_EQ(v->notes.end(), std::find_if(v->notes.begin(), v->notes.end(),
                                         [](const Note& n) {
                                           return n.text.find("loaded while it was checked") !=
                                                  std::string::npos;
                                         }))
      << "no cached baseline foretold the first evaluation's short calls";
}

// Host-bound calls (every CPU candidate's) time the host's launch rate,
// which drifts: the eager Model is timed beside the candidate, call by call,
// and that timing gives both sides (PyTorchTiming::TimeBesideTheBaseline).
TEST(PyTorchTaskTest, HostBoundCallsAreTimedBesideTheEagerModel) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("softmax");
  OwnCache cache("hone-beside-test");
  EvalOptions o = ShortCpuTiming();
  o.compile_baseline = false;
  o.short_call_seconds = 1e-9;  // no call is short: one process a side
  auto v = Env().evaluator->Evaluate(task, PyTorchDir() / "candidates/softmax/right.cpp", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->timing.candidate_time && v->timing.reference_time);
  auto notes = ::testing::PrintToString(v->notes);
  EXPECT_NE(notes.find("call by call interleaved with the candidate's"), std::string::npos)
      << notes;
  int stopped = 0;
  for (const Note& n : v->notes) {
    if (n.text.rfind("timing stopped:", 0) != 0) continue;
    ++stopped;
    EXPECT_NE(n.text.find("interleaved repetitions"), std::string::npos) << n;
  }
  EXPECT_EQ(stopped, 1) << notes;
  // Every repetition timed both sides on the same inputs, and the speedup is
  // the median of their pairs' ratios.
  EXPECT_EQ(v->timing.reference_time->samples.size(), v->timing.candidate_time->samples.size());
  ASSERT_EQ(v->timing.speedup_pairs.size(), v->timing.candidate_time->samples.size());
  EXPECT_GE(v->timing.speedup_pairs.size(), static_cast<size_t>(kPairedMinReps));
  for (size_t i = 0; i < v->timing.speedup_pairs.size(); ++i)
    EXPECT_NEAR(v->timing.speedup_pairs[i],
                v->timing.reference_time->samples[i] / v->timing.candidate_time->samples[i], 1e-12);
  EXPECT_NEAR(v->timing.speedup, Summarize(v->timing.speedup_pairs).median, 1e-12);
  EXPECT_NE(notes.find("interleaved repetitions of eager / candidate"), std::string::npos) << notes;
  // The CPU candidate's threads are not pinned (those it makes later would
  // inherit the one CPU).
  EXPECT_EQ(notes.find("shared CPU"), std::string::npos) << notes;
}

// The eager Model fails while timed beside the candidate: the candidate's
// own timing stands, and the Model is timed apart (where it fails again).
TEST(PyTorchTaskTest, AModelThatFailsBesideTheCandidateLeavesItsTimingAlone) {
  SKIP_WITHOUT_ORACLE();
  const auto dir = SourceDir() / "tests/integration/beside_failure";
  auto task = Env().oracle->Load(dir / "problem.py", {});
  ASSERT_TRUE(task.ok()) << task.status().message();
  OwnCache cache("hone-beside-failure-test");
  EvalOptions o = ShortCpuTiming();
  o.compile_baseline = false;
  o.short_call_seconds = 1e-9;
  o.lint_allow.insert("library");
  auto v = Env().evaluator->Evaluate(*task, dir / "candidate.py", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  ASSERT_TRUE(v->timing.candidate_time.has_value());
  EXPECT_FALSE(v->timing.reference_time.has_value());
  EXPECT_TRUE(v->timing.speedup_pairs.empty()) << "the abandoned interleaved timing's pairs go too";
  auto notes = ::testing::PrintToString(v->notes);
  EXPECT_NE(notes.find("failed while timed beside the candidate"), std::string::npos) << notes;
  EXPECT_NE(notes.find("no eager baseline"), std::string::npos) << notes;
}

TEST(PyTorchTaskTest, OracleResultsAreReusedAcrossCandidates) {
  SKIP_WITHOUT_ORACLE();
  const Task& task = TaskNamed("row_sum");
  auto eval = [&](const char* file) {
    EvalOptions o = VerifyOnly();
    o.backend = "cpu";
    auto v = Env().evaluator->Evaluate(task, PyTorchDir() / "candidates/row_sum" / file, o);
    ASSERT_TRUE(v.ok()) << v.status().message();
  };
  eval("right.cpp");
  int generated = Env().oracle->cost().generated;
  int reused = Env().oracle->cost().reused;
  eval("wrong.cpp");
  eval("right.cpp");
  EXPECT_EQ(Env().oracle->cost().generated, generated) << "the oracle ran again for a candidate";
  EXPECT_GT(Env().oracle->cost().reused, reused);
}

TEST(PyTorchTaskTest, ShapeScaleChangesSizesBeforeTheModuleRuns) {
  SKIP_WITHOUT_ORACLE();
  SizePolicy half;
  half.shape_scale = 0.5;
  auto task = Env().oracle->Load(PyTorchDir() / "softmax.py", half);
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_NE(task->pytorch->shapes.find("(of "), std::string::npos) << task->pytorch->shapes;
  EXPECT_NE(task->hash, TaskNamed("softmax").hash);
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  auto v = Env().evaluator->Evaluate(*task, PyTorchDir() / "candidates/softmax/right.cpp", o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->status, VerdictStatus::kPassed) << v->reason;
  EXPECT_EQ(v->shapes.rfind(task->pytorch->shapes, 0), 0u) << v->shapes;
}

// Training-mode dropout (KernelBench's level2/66): every call of a compat
// candidate, verified, re-checked while timed or timed as a baseline, is
// seeded as the oracle seeded the forward its expected outputs came from.
TEST(PyTorchTaskTest, AForwardThatDrawsRandomNumbersIsSeededLikeTheOracles) {
  SKIP_WITHOUT_ORACLE();
  auto task = Env().oracle->Load(SourceDir() / "python/tests/problems/dropout_train.py", {});
  ASSERT_TRUE(task.ok()) << task.status().message();
  EXPECT_TRUE(task->pytorch->uses_rng);
  EXPECT_FALSE(TaskNamed("softmax").pytorch->uses_rng);
  const auto dir = SourceDir() / "tests/integration/compat_dropout";
  EvalOptions timed = ShortCpuTiming();
  timed.lint_allow.insert("library");
  auto same = Env().evaluator->Evaluate(*task, dir / "same_model.py", timed);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->status, VerdictStatus::kPassed) << same->reason;
  EXPECT_TRUE(same->timing.reference_time.has_value())
      << "the eager baseline, seeded alike, was timed";
  EvalOptions verify = VerifyOnly();
  verify.backend = "cpu";
  verify.lint_allow.insert("library");
  auto own = Env().evaluator->Evaluate(*task, dir / "own_seed.py", verify);
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(own->status, VerdictStatus::kIncorrect) << own->reason;
}

TEST(PyTorchTaskTest, FolderLoadsEveryProblemAndSkipsWhatCannotRun) {
  SKIP_WITHOUT_ORACLE();
  auto ours = Env().oracle->LoadFolder(PyTorchDir(), {});
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  EXPECT_EQ(ours->size(), 8u);  // _check_candidates.py is not a problem
  for (const auto& e : *ours) EXPECT_TRUE(e.task) << e.file << ": " << e.reason;
  auto mixed = Env().oracle->LoadFolder(SourceDir() / "python/tests/problems", {});
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();
  std::map<std::string, const FolderEntry*> by;
  for (const auto& e : *mixed) by[e.file.filename().string()] = &e;
  ASSERT_TRUE(by.count("missing_package.py"));
  EXPECT_TRUE(by["missing_package.py"]->skipped);
  EXPECT_NE(by["missing_package.py"]->reason.find("missing package"), std::string::npos);
  ASSERT_TRUE(by.count("broken.py"));
  EXPECT_FALSE(by["broken.py"]->skipped);
  EXPECT_NE(by["broken.py"]->reason.find("broken.py:"), std::string::npos)
      << by["broken.py"]->reason;
  ASSERT_TRUE(by.count("relu.py"));
  EXPECT_TRUE(by["relu.py"]->task);
}

TEST(PyTorchTaskTest, CompatCandidateNeedsAPyTorchTask) {
  SKIP_WITHOUT_ORACLE();
  auto native = hone::testing::LoadBuiltInTask(SourceDir() / "tests/integration/fixture_add");
  ASSERT_TRUE(native.ok()) << native.status().message();
  EvalOptions o = VerifyOnly();
  o.backend = "cpu";
  auto v = Env().evaluator->Evaluate(
      *native, PyTorchDir() / "candidates/elementwise_relu_scale/compat_torch.py", o);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(v.status().message().find("needs a PyTorch task"), std::string::npos);
}

// TMPDIR for the hone processes started while it lives (their temporary
// files go there), restored after.
class TmpdirWhileAlive {
 public:
  explicit TmpdirWhileAlive(const std::filesystem::path& dir) {
    if (const char* old = std::getenv("TMPDIR")) saved_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirWhileAlive() {
    if (saved_)
      setenv("TMPDIR", saved_->c_str(), 1);
    else
      unsetenv("TMPDIR");
  }

 private:
  std::optional<std::string> saved_;
};

// As root the sandbox runs as 'nobody'. A private TMPDIR (mode 0700, as
// mkdtemp makes it; systemd's PrivateTmp and a TMPDIR under a home are
// alike) is no way through for it: its scratch root, where its prebuilt
// extension is copied for it to open, goes to a folder it can reach.
TEST(PyTorchTaskTest, AModelNewRunsUnderAPrivateTmpdirAsRoot) {
  if (!testing::HaveTorch()) GTEST_SKIP() << "no python3 with torch here";
  if (geteuid() != 0) GTEST_SKIP() << "not root: the sandbox runs as this user";
  auto tmp = MakeTempDir(std::filesystem::temp_directory_path(), "hone-test-private-tmpdir");
  ASSERT_TRUE(tmp.ok());
  std::filesystem::permissions(*tmp, std::filesystem::perms::owner_all);
  CommandResult r = [&] {
    TmpdirWhileAlive in(*tmp);
    return RunHone({"eval", "--backend", "cpu", "--time-budget", "0.3",
                    (PyTorchDir() / "elementwise_relu_scale.py").string(),
                    (SourceDir() / "tests/adversarial/compat/load_inline_cpp.py").string()});
  }();
  std::filesystem::remove_all(*tmp);
  EXPECT_NE(r.output.find("passed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Permission denied"), std::string::npos) << r.output;
}

TEST(PyTorchTaskTest, PromptShowsThePyTorchSourceAndTheContract) {
  SKIP_WITHOUT_ORACLE();
  auto prompts =
      PromptBuilder::Load(SourceDir() / "prompts", SourceDir() / "include", BuiltInLanguages());
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  std::string context = prompts->FirstTurn(TaskNamed("conv2d"), *BuiltInLanguages().Find("cpp"),
                                           Env().base.cpu().machine());
  EXPECT_NE(context.find("class Model(nn.Module)"), std::string::npos) << context;
  EXPECT_NE(context.find("inputs[1] conv.weight"), std::string::npos) << context;
  EXPECT_NE(context.find("state_dict parameter"), std::string::npos) << context;
}

// A bench whose candidates include ModelNew files starts its first warm
// sandbox with the oracle, so that the sandbox imports torch while the
// oracle starts and loads the problems, not after (cli/cmd_bench.cc). The
// trace that shows it shows the oracle's steps too.
TEST(PyTorchTaskTest, ABenchOfModelNewFilesWarmsASandboxWhileItsProblemsLoad) {
  SKIP_WITHOUT_ORACLE();
  namespace fs = std::filesystem;
  const fs::path dir = *MakeTempDir(fs::temp_directory_path(), "hone-early-warm");
  fs::create_directories(dir / "suite/candidates/row_sum");
  fs::copy(PyTorchDir() / "row_sum.py", dir / "suite/row_sum.py");
  fs::copy(PyTorchDir() / "candidates/row_sum/compat_torch.py",
           dir / "suite/candidates/row_sum/compat_torch.py");
  auto r = RunHoneTraced({"bench", (dir / "suite").string(), "--store", (dir / "s.db").string(),
                          "--no-time", "--allow", "library", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(
      TracedInOrder(r.output, "warm pool: a sandbox starts Python and torch", "oracle: hello"));
  // The oracle's own steps of loading the problem come into the same trace
  // (python/hone_oracle_trace.py), after its hello.
  ASSERT_TRUE(TracedInOrder(r.output, "oracle: hello", "oracle load: model built on the device"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// `hone eval` of a PyTorch problem launches the oracle before it opens the
// backends (a fresh machine's ceilings are measured then, over a second on
// a CPU), so that torch's import overlaps them.
// The host's ceilings are read (or measured, quietly) first; then the
// oracle starts importing torch while the device's backend opens.
TEST(PyTorchTaskTest, EvalLaunchesTheOracleBeforeOpeningTheBackends) {
  SKIP_WITHOUT_ORACLE();
  auto r = RunHoneTraced({"eval", (PyTorchDir() / "row_sum.py").string(),
                          (PyTorchDir() / "candidates/row_sum/compat_torch.py").string(),
                          "--no-time", "--allow", "library", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(TracedInOrder(r.output, "eval: host open", "oracle: starting"));
  ASSERT_TRUE(TracedInOrder(r.output, "oracle: starting", "eval: backends open"));
}

// A ModelNew that fails whatever the problem (it does not parse) gets its
// verdict before any oracle starts: none is started only to be waited for.
TEST(PyTorchTaskTest, AVerdictBeforeLoadingStartsNoOracle) {
  SKIP_WITHOUT_ORACLE();
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-no-oracle");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  const std::filesystem::path broken = *dir / "broken.py";
  ASSERT_TRUE(WriteFileAtomic(broken, "import torch\nclass ModelNew(torch.nn.Module:\n").ok());
  auto r =
      RunHoneTraced({"eval", (PyTorchDir() / "row_sum.py").string(), broken.string(), "--quiet"});
  std::filesystem::remove_all(*dir);
  EXPECT_NE(r.output.find("eval: verdict before loading the problem"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("oracle: starting"), std::string::npos) << r.output;
}

// A ModelNew is profiled like a native candidate (issue 53's `profile` tool):
// on the CPU its calls under perf_event; on a GPU its forward alone under ncu.
TEST(PyTorchTaskTest, AModelNewIsProfiled) {
  SKIP_WITHOUT_ORACLE();
  CommandResult r =
      RunHone({"eval", "--metrics", "--json", "--backend", "cpu", "--time-budget", "0.2",
               (PyTorchDir() / "elementwise_relu_scale.py").string(),
               (SourceDir() / "tests/adversarial/compat/load_inline_cpp.py").string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  ASSERT_EQ(j["status"], "passed") << j.dump(1);
  ASSERT_TRUE(j.contains("profile")) << j.dump(1);
  const auto& p = j["profile"];
  EXPECT_EQ(p["not_run"], "") << p.dump(1);
  EXPECT_EQ(p["tool"], "perf_event");
  EXPECT_GE(p["calls"].get<int>(), 3);
  EXPECT_FALSE(p["diagnosis"]["label"].get<std::string>().empty()) << p.dump(1);
}

TEST(PyTorchTaskTest, TaskShowListsAFolderWithSkips) {
  SKIP_WITHOUT_ORACLE();
  CommandResult r =
      RunHone({"task", "show", "--json", (SourceDir() / "python/tests/problems").string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"skipped\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing package"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"loaded\""), std::string::npos) << r.output;
}

// `hone task memory` estimates a problem no machine here could hold (a 68.7 GB
// input) and says which card sizes fit it under each evaluator.
TEST(PyTorchTaskTest, TaskMemoryEstimatesProblemsWithoutRunningThem) {
  SKIP_WITHOUT_ORACLE();
  const auto huge = SourceDir() / "python/tests/too_big/huge_relu.py";
  const auto small = SourceDir() / "python/tests/problems/relu.py";
  CommandResult r =
      RunHone({"task", "memory", "--json", "--card", "2,1000", huge.string(), small.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["problems"].size(), 2u) << r.output;
  const auto& big = j["problems"][0];
  const int64_t tensor = int64_t{65536} * 262144 * 4;
  EXPECT_EQ(big["inputs_bytes"].get<int64_t>(), tensor);
  EXPECT_EQ(big["outputs_bytes"].get<int64_t>(), tensor);
  // KernelBench's evaluator: the input, the reference's output, the candidate's forward, a context.
  EXPECT_EQ(big["kernelbench_bytes"].get<int64_t>(), 3 * tensor + (int64_t{1} << 30));
  EXPECT_GT(big["hone_least_bytes"].get<int64_t>(), big["kernelbench_bytes"].get<int64_t>());
  EXPECT_NE(big["hone_least_parts"].get<std::string>().find("1 buffer slot(s)"), std::string::npos)
      << big.dump();
  EXPECT_FALSE(big["cards"][0]["kernelbench"].get<bool>());
  EXPECT_FALSE(big["cards"][0]["hone"].get<bool>());
  EXPECT_TRUE(big["cards"][1]["kernelbench"].get<bool>());
  EXPECT_TRUE(big["cards"][1]["hone"].get<bool>());
  // A small problem fits KernelBench's one process in 2 GB; hone's three do not.
  const auto& two_gb = j["cards"][0];
  EXPECT_EQ(two_gb["kernelbench_fits"].get<int>(), 1) << r.output;
  EXPECT_EQ(two_gb["hone_fits"].get<int>(), 0) << r.output;
  EXPECT_EQ(two_gb["kernelbench_only"][0], "relu.py") << r.output;

  CommandResult bad = RunHone({"task", "memory", (SourceDir() / "no_such.py").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("no_such.py"), std::string::npos) << bad.output;
  // A native task's folder holds no PyTorch problem: said, not an empty table.
  CommandResult native =
      RunHone({"task", "memory", (SourceDir() / "tasks/examples/gelu").string()});
  EXPECT_EQ(native.exit_code, 2) << native.output;
  EXPECT_NE(native.output.find("no PyTorch problem files"), std::string::npos) << native.output;
}

TEST(PyTorchTaskTest, CommandLineShowsTheContractAndEvaluates) {
  SKIP_WITHOUT_ORACLE();
  CommandResult show = RunHone({"task", "show", (PyTorchDir() / "conv2d.py").string()});
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find("conv.weight"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("state_dict parameter"), std::string::npos) << show.output;
  CommandResult eval =
      RunHone({"eval", "--no-time", "--json", (PyTorchDir() / "scale_by_number.py").string(),
               (PyTorchDir() / "candidates/scale_by_number/right.cpp").string()});
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  EXPECT_NE(eval.output.find("\"status\": \"passed\""), std::string::npos) << eval.output;
  // A ModelNew candidate: its sandbox imported torch while the problem loaded.
  // hone leaves none of its scratch folders in TMPDIR behind.
  auto tmp = MakeTempDir(std::filesystem::temp_directory_path(), "hone-test-tmpdir");
  ASSERT_TRUE(tmp.ok());
  CommandResult compat = [&] {
    TmpdirWhileAlive in(*tmp);
    return RunHone({"eval", "--no-time", "--json", "--backend", "cpu",
                    (PyTorchDir() / "elementwise_relu_scale.py").string(),
                    (SourceDir() / "tests/adversarial/compat/load_inline_cpp.py").string()});
  }();
  ASSERT_EQ(compat.exit_code, 0) << compat.output;
  EXPECT_NE(compat.output.find("\"warm\": true"), std::string::npos) << compat.output;
  for (const auto& e : std::filesystem::directory_iterator(*tmp))
    EXPECT_NE(e.path().filename().string().rfind("hone-", 0), 0u) << e.path() << " left behind";
  std::filesystem::remove_all(*tmp);
  CommandResult bad = RunHone({"eval", "--shape-scale", "3", (PyTorchDir() / "softmax.py").string(),
                               (PyTorchDir() / "candidates/softmax/right.cpp").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--shape-scale"), std::string::npos) << bad.output;
}

// Sends Ctrl-C (SIGINT to the process group, as a terminal sends it) to
// hone `pid`, whose TMPDIR is `tmp`, once its oracle has made its folder
// there (the evaluation is under way; its timing, never precise enough to
// stop early, lasts 30 s), and expects it to end as the signal
// would (130 in a shell) leaving none of its temporary files in `tmp`.
void InterruptOnceTheOracleRuns(pid_t pid, const std::filesystem::path& tmp) {
  auto holds_oracle = [&] {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(tmp, ec))
      if (e.path().filename().string().rfind("hone-oracle", 0) == 0) return true;
    return false;
  };
  for (int i = 0; i < 600 && !holds_oracle(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(holds_oracle()) << "the evaluation never started its oracle";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(-pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
      << "ended " << (WIFEXITED(status) ? "with exit " + std::to_string(WEXITSTATUS(status)) : "");
  // Its children (the oracle, sandboxes) end with it; give them a moment.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  for (const auto& e : std::filesystem::directory_iterator(tmp))
    EXPECT_NE(e.path().filename().string().rfind("hone-", 0), 0u) << e.path() << " left behind";
}

// Ctrl-C while a ModelNew is evaluated leaves nothing behind.
TEST(PyTorchTaskTest, CtrlCLeavesNoTemporaryFilesBehind) {
  if (!testing::HaveTorch()) GTEST_SKIP() << "no python3 with torch here";
  auto tmp = MakeTempDir(std::filesystem::temp_directory_path(), "hone-test-interrupt");
  ASSERT_TRUE(tmp.ok());
  pid_t pid = [&] {
    TmpdirWhileAlive in(*tmp);
    return testing::SpawnHone(
        {"eval", "--backend", "cpu", "--time-budget", "30", "--target-rse", "1e-9", "--max-reps",
         "1000000", (PyTorchDir() / "elementwise_relu_scale.py").string(),
         (SourceDir() / "tests/adversarial/compat/load_inline_cpp.py").string()});
  }();
  InterruptOnceTheOracleRuns(pid, *tmp);
  std::filesystem::remove_all(*tmp);
}

// The same for `hone bench`, whose own SIGINT handler says how to resume
// (cli/interrupt_hint.h): its temporary files are removed before the signal
// ends it.
TEST(PyTorchTaskTest, CtrlCDuringABenchLeavesNoTemporaryFilesBehind) {
  if (!testing::HaveTorch()) GTEST_SKIP() << "no python3 with torch here";
  namespace fs = std::filesystem;
  auto tmp = MakeTempDir(fs::temp_directory_path(), "hone-test-interrupt");
  ASSERT_TRUE(tmp.ok());
  const fs::path work = *MakeTempDir(fs::temp_directory_path(), "hone-test-bench-interrupt");
  fs::create_directories(work / "suite/candidates/elementwise_relu_scale");
  fs::copy(PyTorchDir() / "elementwise_relu_scale.py", work / "suite/elementwise_relu_scale.py");
  fs::copy(SourceDir() / "tests/adversarial/compat/load_inline_cpp.py",
           work / "suite/candidates/elementwise_relu_scale/load_inline_cpp.py");
  pid_t pid = [&] {
    TmpdirWhileAlive in(*tmp);
    return testing::SpawnHone({"bench", "--backend", "cpu", "--time-budget", "30", "--target-rse",
                               "1e-9", "--max-reps", "1000000", (work / "suite").string(),
                               "--store", (work / "s.db").string()});
  }();
  InterruptOnceTheOracleRuns(pid, *tmp);
  fs::remove_all(*tmp);
  fs::remove_all(work);
}

}  // namespace pytorch_task_test
}  // namespace
}  // namespace hone
