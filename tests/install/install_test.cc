// hone installed and moved: `cmake --install` of this build tree into a
// temporary prefix, the prefix then renamed (an installed copy moved
// elsewhere), and the copy run with no variable naming hone's files. Each
// test marks one installed resource (the contract header, a prompt, the
// oracle) so that a copy that fell back to the source tree shows it. The
// Debian package (cpack) is built, unpacked and run the same way.
// ctest labels: integration, install.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fs.h"
#include "core/subprocess.h"
#include "integration/test_env.h"
#include "support/fake_llm_server.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace hone::testing;

// Variables that point hone (or the tests) at the source or build tree.
const char* kLocationVariables[] = {"HONE_INCLUDE_DIR", "HONE_PROMPTS",   "HONE_PYTHON_DIR",
                                    "HONE_ORACLE",      "HONE_SANDBOX",   "HONE_SANDBOX_CUDA",
                                    "HONE_SOURCE_DIR",  "HONE_BINARY_DIR"};

const char kMarker[] = "hone-install-test-marker";

Status AppendToFile(const fs::path& path, const std::string& text) {
  HONE_ASSIGN_OR_RETURN(std::string content, ReadFile(path));
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  return WriteFileAtomic(path, content + text);
}

// The first JSON object in a command's output.
json FirstJson(const std::string& output) {
  size_t start = output.find('{');
  if (start == std::string::npos) return json();
  return json::parse(output.substr(start, output.rfind('}') - start + 1), nullptr, false);
}

class InstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = MakeTempDir(fs::temp_directory_path(), "hone-install");
    ASSERT_TRUE(d.ok()) << d.status().message();
    dir_ = *d;
    fs::path staged = dir_ / "staged";
    CommandOptions o;
    o.timeout = std::chrono::minutes(2);
    auto r = RunCommand(
        {HONE_TEST_CMAKE_COMMAND, "--install", BinaryDir().string(), "--prefix", staged.string()},
        o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(r->succeeded()) << r->output;
    // Moved after installing: nothing may depend on the prefix it was installed to.
    prefix_ = dir_ / "moved";
    fs::rename(staged, prefix_);
    TestCache();  // HONE_CACHE: the tests' compile cache and machine ceilings
    for (const char* v : kLocationVariables) unsetenv(v);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // Runs the installed hone in a scratch working directory.
  CommandResult Hone(std::vector<std::string> args) {
    args.insert(args.begin(), (prefix_ / "bin" / "hone").string());
    CommandOptions o;
    o.timeout = std::chrono::minutes(5);
    o.max_output_bytes = 8 << 20;
    fs::create_directories(dir_ / "work");
    o.cwd = (dir_ / "work").string();
    return std::move(RunCommand(args, o)).value();
  }

  fs::path Share() const { return prefix_ / "share" / "hone"; }

  // `hone eval TASK CANDIDATE --json` by the installed copy: the verdict.
  json Eval(const fs::path& task, const fs::path& candidate, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"eval",   task.string(), candidate.string(),
                                     "--json", "--quiet",     "--no-time"};
    args.insert(args.end(), more.begin(), more.end());
    CommandResult r = Hone(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    json v = FirstJson(r.output);
    EXPECT_TRUE(v.is_object()) << r.output;
    return v.is_object() ? v : json::object();
  }

  fs::path dir_, prefix_;
};

TEST_F(InstallTest, InstallsEverythingHoneFindsAtRunTime) {
  std::vector<fs::path> expected = {"bin/hone",
                                    "bin/hone-sandbox",
                                    "include/hone/kernel.h",
                                    "share/hone/prompts/system.txt",
                                    "share/hone/prompts/example_cpu.cpp",
                                    "share/hone/python/hone_oracle.py",
                                    "share/hone/python/hone_oracle_tensors.py",
                                    "share/hone/python/hone_oracle_source.py",
                                    "share/hone/python/hone_oracle_dists.py",
                                    "share/hone/python/hone_oracle_problem.py",
                                    "share/hone/python/hone_oracle_runtime.py",
                                    "share/hone/python/hone_compat.py",
                                    "share/hone/python/hone_compat_call.py",
                                    "share/hone/python/hone_pyscan.py",
                                    "share/hone/python/hone_pyscope.py",
                                    "share/hone/python/hone_pyimports.py",
                                    "share/hone/python/hone_pyresolve.py",
                                    "share/hone/python/hone_pycalls.py",
                                    "share/hone/python/hone_extbuild.py",
                                    "share/hone/tasks/examples/softmax/task.toml",
                                    "share/hone/tasks/pytorch/softmax.py",
                                    "share/doc/hone/README.md",
                                    "share/doc/hone/docs/CLI.md"};
  if (HONE_HAVE_CUDA) expected.push_back("bin/hone-sandbox-cuda");
  for (const auto& p : expected) EXPECT_TRUE(fs::is_regular_file(prefix_ / p)) << p;
  EXPECT_FALSE(fs::exists(Share() / "python" / "tests")) << "the oracle's own tests are installed";
  EXPECT_FALSE(fs::exists(Share() / "python" / "__pycache__"));
  CommandResult version = Hone({"--version"});
  EXPECT_EQ(version.exit_code, 0) << version.output;
  EXPECT_NE(version.output.find("hone "), std::string::npos) << version.output;
  // A test build says so, so that no one installs or times it by mistake.
#ifdef HONE_TEST_BUILD
  EXPECT_NE(version.output.find("a test build"), std::string::npos) << version.output;
#else
  EXPECT_EQ(version.output.find("test build"), std::string::npos) << version.output;
#endif
}

// The installed example with its example solution, and a candidate that
// only compiles against the installed copy's kernel.h.
TEST_F(InstallTest, MovedCopyEvaluatesAnExampleAgainstItsOwnHeader) {
  fs::path task = Share() / "tasks/examples/softmax";
  json v = Eval(task, task / "solutions/fast.cpp");
  EXPECT_EQ(v.value("status", ""), "passed") << v.dump(2);

  ASSERT_TRUE(
      AppendToFile(prefix_ / "include/hone/kernel.h", "\n#define HONE_INSTALL_TEST_MARKER 1\n")
          .ok());
  auto solution = ReadFile(task / "solutions/fast.cpp");
  ASSERT_TRUE(solution.ok()) << solution.status().message();
  fs::path candidate = dir_ / "marked.cpp";
  ASSERT_TRUE(WriteFileAtomic(candidate,
                              "#include <hone/kernel.h>\n"
                              "#ifndef HONE_INSTALL_TEST_MARKER\n"
                              "#error built against a kernel.h other than the installed one\n"
                              "#endif\n" +
                                  *solution)
                  .ok());
  v = Eval(task, candidate);
  EXPECT_EQ(v.value("status", ""), "passed") << v.dump(2);
}

// `hone optimize` against a fake LLM: the system prompt it sends is the
// installed template's.
TEST_F(InstallTest, MovedCopyReadsItsOwnPromptTemplates) {
  ASSERT_TRUE(
      AppendToFile(Share() / "prompts/system.txt", std::string("\n") + kMarker + "\n").ok());
  FakeLlmServer server;
  ASSERT_TRUE(server.Start().ok());
  fs::path task = Share() / "tasks/examples/softmax";
  auto solution = ReadFile(task / "solutions/naive.cpp");
  ASSERT_TRUE(solution.ok());
  server.Enqueue(FakeResponse{200, {}, OpenAiReply("```cpp\n" + *solution + "```\n")});
  CommandResult r = Hone({"optimize", task.string(), "--model", "openai-compatible:fake",
                          "--base-url", server.base_url(), "--strategy", "sample", "--samples", "1",
                          "--run-dir", (dir_ / "run").string(), "--store", (dir_ / "s.db").string(),
                          "--json", "--quiet", "--time-budget", "0.1"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto requests = server.requests();
  ASSERT_FALSE(requests.empty()) << r.output;
  EXPECT_NE(requests[0].body.find(kMarker), std::string::npos)
      << "the prompt did not come from " << (Share() / "prompts") << ":\n"
      << requests[0].body.substr(0, 2000);
}

// A PyTorch task starts the installed oracle: one that only says who it is
// shows up in hone's message. Needs no torch.
TEST_F(InstallTest, MovedCopyStartsItsOwnOracle) {
  fs::path oracle = Share() / "python/hone_oracle.py";
  fs::permissions(oracle, fs::perms::owner_write, fs::perm_options::add);
  ASSERT_TRUE(
      WriteFileAtomic(oracle, std::string("import sys\nsys.exit('") + kMarker + "')\n").ok());
  fs::path task = Share() / "tasks/pytorch/elementwise_relu_scale.py";
  CommandResult r =
      Hone({"eval", task.string(),
            (Share() / "tasks/pytorch/candidates/elementwise_relu_scale/right.cpp").string(),
            "--no-time"});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(kMarker), std::string::npos) << "hone did not start " << oracle << ":\n"
                                                       << r.output;
}

// The same task with the intact installed oracle, a native candidate and a
// compat (ModelNew) one, which also runs hone_compat.py and hone_pyscan.py.
// Skipped where no python3 imports torch.
TEST_F(InstallTest, MovedCopyEvaluatesAPyTorchTask) {
  // hone tries every python3 on PATH, then /usr/bin/python3 (task/oracle_client.h).
  bool torch = false;
  for (const char* python : {"python3", "/usr/bin/python3"})
    torch = torch || std::move(RunCommand({python, "-c", "import torch"})).value().succeeded();
  if (!torch) GTEST_SKIP() << "no python3 imports torch (apt-get install python3-torch)";
  fs::path task = Share() / "tasks/pytorch/elementwise_relu_scale.py";
  fs::path candidates = Share() / "tasks/pytorch/candidates/elementwise_relu_scale";
  json v = Eval(task, candidates / "right.cpp");
  EXPECT_EQ(v.value("status", ""), "passed") << v.dump(2);
  v = Eval(task, candidates / "compat_torch.py", {"--allow", "library"});
  EXPECT_EQ(v.value("status", ""), "passed") << v.dump(2);
}

// `cpack -G DEB` of this build tree: the package's metadata, and its files,
// unpacked into a temporary folder (stripped binaries, PREFIX /usr), evaluate
// an example. Skipped without dpkg-deb.
TEST(DebianPackageTest, PackageHoldsAWorkingHoneAndSaysWhatItNeeds) {
  if (access("/usr/bin/dpkg-deb", X_OK) != 0) GTEST_SKIP() << "dpkg-deb is not installed";
  auto d = MakeTempDir(fs::temp_directory_path(), "hone-deb");
  ASSERT_TRUE(d.ok()) << d.status().message();
  fs::path dir = *d;
  CommandOptions o;
  o.timeout = std::chrono::minutes(3);
  auto cpack = RunCommand({HONE_TEST_CPACK_COMMAND, "-G", "DEB", "--config",
                           (BinaryDir() / "CPackConfig.cmake").string(), "-B", dir.string()},
                          o);
  ASSERT_TRUE(cpack.ok()) << cpack.status().message();
  ASSERT_TRUE(cpack->succeeded()) << cpack->output;
  fs::path deb;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << cpack->output;

  auto field = [&](const std::string& name) {
    auto r = RunCommand({"dpkg-deb", "--field", deb.string(), name});
    return r.ok() && r->succeeded() ? r->output : std::string();
  };
  EXPECT_EQ(field("Package"), "hone\n");
  EXPECT_NE(field("Maintainer"), "");
  std::string depends = field("Depends");
  for (const char* package : {"g++", "libc6-dev", "libseccomp2", "libfmt9", "libsqlite3-0"})
    EXPECT_NE(depends.find(package), std::string::npos) << package << " missing from " << depends;
  EXPECT_NE(field("Recommends").find("python3-torch"), std::string::npos);

  fs::path root = dir / "root";
  auto x = RunCommand({"dpkg-deb", "-x", deb.string(), root.string()});
  ASSERT_TRUE(x.ok() && x->succeeded()) << (x.ok() ? x->output : x.status().message());
  fs::path share = root / "usr/share/hone";
  for (const char* v : kLocationVariables) unsetenv(v);
  TestCache();
  o.cwd = dir.string();
  auto eval = RunCommand(
      {(root / "usr/bin/hone").string(), "eval", (share / "tasks/examples/gelu").string(),
       (share / "tasks/examples/gelu/solutions/fast.cpp").string(), "--json", "--quiet",
       "--no-time"},
      o);
  ASSERT_TRUE(eval.ok()) << eval.status().message();
  EXPECT_EQ(eval->exit_code, 0) << eval->output;
  EXPECT_EQ(FirstJson(eval->output).value("status", ""), "passed") << eval->output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace hone
