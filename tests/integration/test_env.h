// Shared set-up for integration tests: a compile cache under the build tree,
// the sandbox built beside the tests, and an Evaluator over them.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "build/compiler_builder.h"
#include "core/fs.h"
#include "core/subprocess.h"
#include "run/evaluator.h"

namespace hone::testing {

// The source and build trees; HONE_SOURCE_DIR and HONE_BINARY_DIR override
// them when the tests run from a copy (scripts/gpu-check on a GPU machine).
inline std::filesystem::path SourceDir() {
  const char* e = std::getenv("HONE_SOURCE_DIR");
  return e && *e ? std::filesystem::path(e) : std::filesystem::path(HONE_TEST_SOURCE_DIR);
}
inline std::filesystem::path BinaryDir() {
  const char* e = std::getenv("HONE_BINARY_DIR");
  return e && *e ? std::filesystem::path(e) : std::filesystem::path(HONE_TEST_BINARY_DIR);
}
inline std::filesystem::path TestCache() {
  std::filesystem::path p = BinaryDir() / "test-cache";
  setenv("HONE_CACHE", p.c_str(), 1);
  return p;
}

struct TestEvaluator {
  std::unique_ptr<CompilerBuilder> builder;
  std::unique_ptr<Evaluator> evaluator;

  static TestEvaluator Make() {
    TestEvaluator t;
    std::filesystem::path cache = TestCache();
    t.builder =
        std::move(CompilerBuilder::Create(CompileCache(cache / "builds"), CpuCompilerOptions()))
            .value();
    EvaluatorEnv env;
    env.builder = t.builder.get();
    env.sandbox_executable = BinaryDir() / "hone-sandbox";
    env.scratch_root = cache / "scratch";
    env.machine = std::move(LoadOrMeasureMachine(cache)).value();
    t.evaluator = std::make_unique<Evaluator>(env);
    return t;
  }
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

// One line of a catalogue's expectations file:
//   <file> <status> <reason substring or -> [timed]
struct Expectation {
  std::string file, status, reason;
  bool timed = false;  // some hacks act only on timed calls
};

inline void PrintTo(const Expectation& e, std::ostream* os) { *os << e.file << " -> " << e.status; }

inline std::vector<Expectation> LoadExpectations(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<Expectation> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Expectation e;
    std::string mode;
    ls >> e.file >> e.status >> e.reason >> mode;
    e.timed = mode == "timed";
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
