// Shared set-up for integration tests: a compile cache under the build tree,
// the sandbox built beside the tests, and an Evaluator over them.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "build/compiler_builder.h"
#include "core/fs.h"
#include "core/subprocess.h"
#include "pytorch/pytorch_stages.h"
#include "run/cpu_backend.h"
#include "run/evaluator.h"
#include "support/source_dir.h"

namespace hone::testing {

// Some interpreter the oracle would try imports torch (src/task/oracle_client.cc).
inline bool HaveTorch() {
  const char* named = std::getenv("HONE_PYTHON");
  for (std::string python :
       {std::string(named ? named : ""), std::string("python3"), std::string("/usr/bin/python3")}) {
    if (python.empty()) continue;
    auto r = RunCommand({python, "-c", "import torch"});
    if (r.ok() && r->succeeded()) return true;
  }
  return false;
}

// The build tree; HONE_BINARY_DIR overrides it when the tests run from a
// copy (scripts/gpu-check on a GPU machine). SourceDir: support/source_dir.h.
inline std::filesystem::path BinaryDir() {
  const char* e = std::getenv("HONE_BINARY_DIR");
  return e && *e ? std::filesystem::path(e) : std::filesystem::path(HONE_TEST_BINARY_DIR);
}
inline std::filesystem::path TestCache() {
  std::filesystem::path p = BinaryDir() / "test-cache";
  setenv("HONE_CACHE", p.c_str(), 1);
  return p;
}

// The CPU backend over the test cache and the sandbox built beside the tests.
inline std::shared_ptr<const Backend> TestCpuBackend() {
  std::filesystem::path cache = TestCache();
  return std::make_shared<CpuBackend>(
      std::move(CompilerBuilder::Create(CompileCache(cache / "builds"), CpuCompilerOptions()))
          .value(),
      BinaryDir() / "hone-sandbox", std::move(LoadOrMeasureMachine(cache)).value());
}

// An environment with the CPU backend opened and the PyTorch path, scratch
// in the test cache.
inline EvaluatorEnv TestCpuEnv() {
  EvaluatorEnv env;
  env.languages = BuiltInLanguages();
  RegisterCpuBackend(env.backends);
  env.backends.Add(TestCpuBackend());
  env.open_pytorch_path = OpenPyTorchStages;
  env.scratch_root = TestCache() / "scratch";
  return env;
}

struct TestEvaluator {
  std::unique_ptr<Evaluator> evaluator;

  static TestEvaluator Make() {
    TestEvaluator t;
    t.evaluator = std::make_unique<Evaluator>(TestCpuEnv());
    return t;
  }
  // The CPU backend its evaluator runs candidates on.
  const Backend& cpu() const { return *evaluator->env().backends.Find("cpu"); }
};

// Fast options for tests: verification only unless a test asks for timing.
inline EvalOptions VerifyOnly() {
  EvalOptions o;
  o.time = false;
  return o;
}

// Runs the hone binary with arguments; HONE_CACHE points at the test cache.
inline CommandResult RunHone(std::vector<std::string> args) {
  TestCache();
  args.insert(args.begin(), (BinaryDir() / "hone").string());
  CommandOptions o;
  o.timeout = std::chrono::minutes(5);
  o.max_output_bytes = 8 << 20;
  return std::move(RunCommand(args, o)).value();
}

// RunHone with HONE_TRACE set: the output holds hone's timeline
// (core/trace.h), the oracle's steps among it.
inline CommandResult RunHoneTraced(std::vector<std::string> args) {
  setenv("HONE_TRACE", "1", 1);
  CommandResult r = RunHone(std::move(args));
  unsetenv("HONE_TRACE");
  return r;
}

// Whether `output` (a RunHoneTraced one) holds `first` and, after it, `second`.
inline ::testing::AssertionResult TracedInOrder(const std::string& output, const std::string& first,
                                                const std::string& second) {
  const size_t a = output.find(first), b = output.find(second);
  if (a == std::string::npos)
    return ::testing::AssertionFailure() << "no '" << first << "' in:\n" << output;
  if (b == std::string::npos)
    return ::testing::AssertionFailure() << "no '" << second << "' in:\n" << output;
  if (b < a)
    return ::testing::AssertionFailure() << "'" << second << "' came before '" << first << "' in:\n"
                                         << output;
  return ::testing::AssertionSuccess();
}

// Starts the hone binary in the background, in a process group of its own
// (kill(-pid, SIGKILL) takes its sandboxes too), output to /dev/null; the
// test reaps it with waitpid. HONE_CACHE points at the test cache.
// `output`, when given, receives stdout and stderr instead.
inline pid_t SpawnHone(const std::vector<std::string>& args, const std::string& output = "") {
  TestCache();
  std::string hone = (BinaryDir() / "hone").string();
  std::vector<char*> argv = {hone.data()};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int null = output.empty() ? open("/dev/null", O_WRONLY)
                              : open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(null, 1);
    dup2(null, 2);
    execv(hone.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// What /proc/PID/stat says of a process ("pid (comm) S ppid ..."; comm may
// hold ')'): its state letter ('Z' a zombie, 'T' stopped) and its parent.
// State '?' when it has gone.
struct ProcStat {
  char state = '?';
  pid_t parent = -1;
};
inline ProcStat ReadProcStat(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  ProcStat out;
  if (!std::getline(stat, line)) return out;
  size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 4 > line.size()) return out;
  out.state = line[paren + 2];
  out.parent = static_cast<pid_t>(std::atoi(line.c_str() + paren + 4));
  return out;
}

// One line of a catalogue's expectations file (tests/adversarial/):
//   <file> <status> <reason substring or -> [options...]
// Options, in any order:
//   timed            evaluate with timing on (some hacks act only on timed calls)
//   task=NAME        the task: tests/adversarial/tasks/NAME (default: fixture_add)
//   dynamic=S:R      the verdict with static lint off (status S, reason substring R,
//                    '-' for none): what the run-time checks alone do. Absent: the
//                    same verdict as with lint.
//   max_speedup=X    the verdict must be passed with a speedup of at most X: a hack
//                    the protocol neutralises (it cannot make its timing faster)
//   allow=RULE       evaluate with lint rule RULE allowed (compat catalogue)
struct Expectation {
  std::string file, status, reason;
  bool timed = false;
  std::string task;                            // empty: tests/integration/fixture_add
  std::string dynamic_status, dynamic_reason;  // empty: as status and reason
  double max_speedup = 0;                      // 0: not checked
  std::set<std::string> allow;                 // allow=RULE: lint rules allowed
  int line = 0;                                // in the expectations file
};

inline void PrintTo(const Expectation& e, std::ostream* os) { *os << e.file << " -> " << e.status; }

// The task folder an expectation names.
inline std::filesystem::path ExpectationTask(const std::filesystem::path& source_dir,
                                             const Expectation& e) {
  return e.task.empty() ? source_dir / "tests/integration/fixture_add"
                        : source_dir / "tests/adversarial/tasks" / e.task;
}

inline std::vector<Expectation> LoadExpectations(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<Expectation> out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Expectation e;
    e.line = number;
    ls >> e.file >> e.status >> e.reason;
    for (std::string opt; ls >> opt;) {
      if (opt == "timed") {
        e.timed = true;
      } else if (opt.rfind("task=", 0) == 0) {
        e.task = opt.substr(5);
      } else if (opt.rfind("dynamic=", 0) == 0) {
        std::string v = opt.substr(8);
        size_t colon = v.find(':');
        e.dynamic_status = v.substr(0, colon);
        e.dynamic_reason = colon == std::string::npos ? "-" : v.substr(colon + 1);
      } else if (opt.rfind("allow=", 0) == 0) {
        e.allow.insert(opt.substr(6));
      } else if (opt.rfind("max_speedup=", 0) == 0) {
        e.max_speedup = std::stod(opt.substr(12));
      } else {
        ADD_FAILURE() << file << ":" << number << ": unknown option '" << opt << "'";
      }
    }
    out.push_back(e);
  }
  return out;
}

// Whether a verdict's reason contains the expected substring, ignoring case
// ("-" expects nothing).
inline bool ReasonMatches(std::string reason, std::string expected) {
  if (expected == "-") return true;
  auto lower = [](std::string& s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  };
  lower(reason);
  lower(expected);
  return reason.find(expected) != std::string::npos;
}

}  // namespace hone::testing
