// TorchExtensionBuilder on real plans: the oracle's side (hone_extbuild.py
// under a Python that imports torch) prepares a C++ extension as the
// installed torch's load_inline would, hone builds it (with the precompiled
// header where the compiler is gcc), Python imports the result, and the
// second build is a cache hit. Skipped when no Python here imports torch.
#include "build/torch_extension.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

#include "core/fs.h"
#include "core/subprocess.h"
#include "test_env.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

CommandResult RunPython(const std::string& python, const std::string& code,
                        std::vector<std::string> args = {}) {
  std::vector<std::string> argv = {python, "-c", code};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandOptions o;
  o.timeout = std::chrono::minutes(3);
  auto r = RunCommand(argv, o);
  return r.ok() ? *r : CommandResult{};
}

// HONE_PYTHON, else python3 on PATH, else /usr/bin/python3: the first that
// imports torch; "" when none does.
const std::string& TorchPython() {
  static const std::string found = [] {
    std::vector<std::string> candidates;
    if (const char* e = std::getenv("HONE_PYTHON"); e && *e) candidates.push_back(e);
    candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});
    for (const auto& py : candidates)
      if (RunPython(py, "import torch").succeeded()) return py;
    return std::string();
  }();
  return found;
}

// The last JSON object line of a Python's output (torch prints warnings).
json LastJson(const std::string& output) {
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.front() == '{') last = line;
  return json::parse(last, nullptr, false);
}

// hone_extbuild.prepare through the oracle's Python, as the oracle runs it.
Result<TorchExtensionPlan> Prepare(const json& args, const fs::path& build_dir) {
  std::string code =
      "import sys, json; sys.path.insert(0, sys.argv[1]); import hone_extbuild; "
      "print(json.dumps(hone_extbuild.prepare('load_inline', "
      "json.loads(sys.argv[2]), sys.argv[3])))";
  CommandResult r =
      RunPython(TorchPython(), code,
                {(testing::SourceDir() / "python").string(), args.dump(), build_dir.string()});
  json reply = LastJson(r.output);
  if (!r.succeeded() || reply.is_discarded())
    return Status::Internal("prepare failed: " + r.output);
  return TorchExtensionPlanFromJson(reply);
}

// A fresh name per run: the first build of each test is cold.
std::string Nonce() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(rd());
}

class TorchExtensionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TorchPython().empty())
      GTEST_SKIP() << "no Python here imports torch (install python3-torch, or set HONE_PYTHON)";
    work_ = MakeTempDir(testing::TestCache() / "tmp", "torch-ext-test").value();
  }
  void TearDown() override {
    if (!work_.empty()) fs::remove_all(work_);
  }
  // The persistent test cache: the precompiled header is built once for all
  // runs; the extensions' own sources are unique per run.
  fs::path Cache() { return testing::TestCache() / "torch-extensions"; }

  fs::path work_;
};

TEST_F(TorchExtensionTest, BuildsALoadableModuleAndCachesIt) {
  std::string nonce = Nonce();
  json args = {{"name", "hone_add_one"},
               {"cpp_sources",
                "// run " + nonce + "\ntorch::Tensor add_one(torch::Tensor x) { return x + 1; }"},
               {"functions", {"add_one"}}};
  auto plan = Prepare(args, work_ / "build");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  TorchExtensionBuilder builder(Cache());
  auto cold = builder.Build(*plan);
  ASSERT_TRUE(cold.ok()) << cold.status().message();
  ASSERT_TRUE(cold->ok) << cold->full_log;
  EXPECT_FALSE(cold->cached);
  EXPECT_TRUE(fs::is_regular_file(cold->library));
  EXPECT_EQ(cold->library.parent_path().parent_path(), Cache());
  // gcc here: the C++ step used the precompiled header, and gcc took it.
  EXPECT_NE(cold->command.find("-Winvalid-pch"), std::string::npos) << cold->command;
  EXPECT_EQ(cold->full_log.find("not used because"), std::string::npos) << cold->full_log;
  // The log names the plan's folder, not the build's temporary copy.
  EXPECT_NE(cold->full_log.find((work_ / "build" / "main.cpp").string()), std::string::npos);
  EXPECT_EQ(cold->full_log.find((Cache() / "tmp" / "ext-").string()), std::string::npos);

  auto hit = builder.Build(*plan);
  ASSERT_TRUE(hit.ok());
  EXPECT_TRUE(hit->cached);
  EXPECT_TRUE(hit->ok);
  EXPECT_EQ(hit->library, cold->library);
  EXPECT_LT(hit->seconds, 0.5);
  std::cout << "[ timing   ] cold build " << cold->seconds << " s, cached " << hit->seconds * 1e3
            << " ms\n";

  std::string check =
      "import sys, torch, importlib.machinery, importlib.util\n"
      "loader = importlib.machinery.ExtensionFileLoader('hone_add_one', sys.argv[1])\n"
      "spec = importlib.util.spec_from_file_location('hone_add_one', sys.argv[1], "
      "loader=loader)\n"
      "m = importlib.util.module_from_spec(spec); loader.exec_module(m)\n"
      "print(m.add_one(torch.ones(3)).tolist())\n";
  CommandResult run = RunPython(TorchPython(), check, {cold->library.string()});
  EXPECT_TRUE(run.succeeded()) << run.output;
  EXPECT_NE(run.output.find("[2.0, 2.0, 2.0]"), std::string::npos) << run.output;
}

TEST_F(TorchExtensionTest, ACompileErrorIsAResultWithATrimmedLog) {
  json args = {
      {"name", "hone_broken"},
      {"cpp_sources",
       "// run " + Nonce() + "\ntorch::Tensor f(torch::Tensor x) {\n  return x + undeclared;\n}"},
      {"functions", {"f"}}};
  auto plan = Prepare(args, work_ / "build");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  TorchExtensionBuilder builder(Cache());
  auto r = builder.Build(*plan);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->ok);
  // main.cpp: line 1 is torch's #include, then the comment, the signature,
  // and the bad line at 4.
  EXPECT_NE(r->log.find("main.cpp:4:"), std::string::npos) << r->log;
  EXPECT_NE(r->log.find("undeclared"), std::string::npos) << r->log;
  EXPECT_EQ(r->log.find("/tmp"), std::string::npos) << r->log;
  EXPECT_EQ(r->log.find("ext-"), std::string::npos) << r->log;
  auto again = builder.Build(*plan);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cached);
  EXPECT_FALSE(again->ok);
  EXPECT_EQ(again->log, r->log);
}

TEST_F(TorchExtensionTest, TheSamePlanTwiceAtOnce) {
  json args = {{"name", "hone_twice"},
               {"cpp_sources", "// run " + Nonce() + "\nint twice(int x) { return 2 * x; }"},
               {"functions", {"twice"}}};
  auto plan = Prepare(args, work_ / "build");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  TorchExtensionBuilder builder(Cache());
  Result<BuildResult> a = Status::Internal("not run"), b = Status::Internal("not run");
  std::thread ta([&] { a = builder.Build(*plan); });
  std::thread tb([&] { b = builder.Build(*plan); });
  ta.join();
  tb.join();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->ok && b->ok) << a->full_log << b->full_log;
  EXPECT_EQ(a->library, b->library);
  EXPECT_TRUE(fs::is_regular_file(a->library));
}

}  // namespace
}  // namespace hone
