// The torch extension build plan (the oracle's prepare_extension reply) as
// hone reads it, its cache key, and the precompiled header's flag handling.
// No real compiler runs here (a fake gcc does, for the header's lock):
// tests/integration/torch_extension_test.cc builds.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "build/torch_extension.h"
#include "build/torch_pch.h"
#include "core/fs.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A reply like hone_extbuild.prepare's for a C++-only extension in `dir`.
json Reply(const std::string& dir) {
  return {
      {"ok", true},
      {"key", "f8765aafb7eb896db06ecb1561bfd07390adac4be2ea0a480f07b982ac8ab600"},
      {"kind", "load_inline"},
      {"name", "addone"},
      {"build_dir", dir},
      {"library", dir + "/addone.so"},
      {"with_cuda", false},
      {"is_python_module", true},
      {"toolchain",
       {{"torch", "1.13.0a0"},
        {"cxx", "c++ (Debian 12.2.0-14) 12.2.0"},
        {"nvcc", nullptr},
        {"cuda_arch_flags", json::array()}}},
      {"steps",
       {{{"id", "main.o"},
         {"kind", "cxx"},
         {"argv",
          {"c++", "-MMD", "-MF", "main.o.d", "-DTORCH_EXTENSION_NAME=addone", "-isystem",
           "/t/include", "-fPIC", "-std=c++14", "-c", dir + "/main.cpp", "-o", "main.o"}},
         {"inputs", {dir + "/main.cpp"}},
         {"outputs", {dir + "/main.o"}}},
        {{"id", "addone.so"},
         {"kind", "link"},
         {"argv", {"c++", "main.o", "-shared", "-ltorch", "-o", "addone.so"}},
         {"inputs", {dir + "/main.o"}},
         {"outputs", {dir + "/addone.so"}}}}},
  };
}

std::string ErrorOf(const json& reply) {
  auto p = TorchExtensionPlanFromJson(reply);
  return p.ok() ? "" : p.status().message();
}

TEST(TorchExtensionPlanTest, ParsesAPrepareReply) {
  auto plan = TorchExtensionPlanFromJson(Reply("/b/ext/"));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->name, "addone");
  EXPECT_EQ(plan->kind, "load_inline");
  EXPECT_EQ(plan->build_dir, fs::path("/b/ext"));  // the trailing slash goes
  EXPECT_EQ(plan->library, fs::path("/b/ext/addone.so"));
  EXPECT_FALSE(plan->with_cuda);
  EXPECT_EQ(plan->toolchain.torch, "1.13.0a0");
  EXPECT_EQ(plan->toolchain.nvcc, "");
  ASSERT_EQ(plan->steps.size(), 2u);
  EXPECT_EQ(plan->steps[0].kind, "cxx");
  EXPECT_EQ(plan->steps[0].argv.front(), "c++");
  EXPECT_EQ(plan->steps[1].inputs, std::vector<fs::path>{"/b/ext/main.o"});
}

TEST(TorchExtensionPlanTest, ErrorsNameTheField) {
  EXPECT_EQ(ErrorOf({{"ok", false}, {"error", "torch 1.13 has no CUDA"}}),
            "prepare_extension failed: torch 1.13 has no CUDA");
  json r = Reply("/b");
  r.erase("key");
  EXPECT_NE(ErrorOf(r).find("'key' is missing"), std::string::npos) << ErrorOf(r);
  r = Reply("/b");
  r["steps"][1]["argv"] = "c++ main.o";
  EXPECT_NE(ErrorOf(r).find("'steps[1].argv' must be a list of strings"), std::string::npos);
  r = Reply("/b");
  r["steps"][0]["kind"] = "rustc";
  EXPECT_NE(ErrorOf(r).find("'steps[0].kind'"), std::string::npos);
  r = Reply("/b");
  r["steps"][0]["inputs"] = {"main.cpp"};
  EXPECT_NE(ErrorOf(r).find("'steps[0].inputs' must hold absolute paths"), std::string::npos);
  r = Reply("/b");
  r["library"] = "/elsewhere/addone.so";
  EXPECT_NE(ErrorOf(r).find("'library' is not the output of any step"), std::string::npos);
  r = Reply("/b");
  r["steps"] = json::array();
  EXPECT_NE(ErrorOf(r).find("'steps'"), std::string::npos);
  r = Reply("/b");
  r["with_cuda"] = "yes";
  EXPECT_NE(ErrorOf(r).find("'with_cuda'"), std::string::npos);
  EXPECT_NE(ErrorOf(json::array()).find("not an object"), std::string::npos);
}

class TorchExtensionKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = MakeTempDir("/tmp", "hone-ext-key").value();
    b_ = MakeTempDir("/tmp", "hone-ext-key").value();
    for (const auto& d : {a_, b_})
      ASSERT_TRUE(WriteFileAtomic(d / "main.cpp", "#include <torch/extension.h>\n").ok());
  }
  void TearDown() override {
    fs::remove_all(a_);
    fs::remove_all(b_);
  }
  std::string Key(const json& reply) {
    auto plan = TorchExtensionPlanFromJson(reply);
    EXPECT_TRUE(plan.ok()) << plan.status().message();
    auto key = TorchExtensionCacheKey(*plan);
    EXPECT_TRUE(key.ok()) << key.status().message();
    return key.ok() ? *key : "";
  }
  fs::path a_, b_;
};

TEST_F(TorchExtensionKeyTest, IndependentOfTheBuildFolder) {
  std::string key = Key(Reply(a_.string()));
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, Key(Reply(b_.string())));
}

TEST_F(TorchExtensionKeyTest, ChangesWithSourcesFlagsAndToolchain) {
  std::string key = Key(Reply(a_.string()));
  ASSERT_TRUE(WriteFileAtomic(b_ / "main.cpp", "#include <torch/extension.h>\nint x;\n").ok());
  EXPECT_NE(key, Key(Reply(b_.string())));
  json r = Reply(a_.string());
  r["steps"][0]["argv"][8] = "-std=c++17";
  EXPECT_NE(key, Key(r));
  r = Reply(a_.string());
  r["toolchain"]["torch"] = "2.11.0";
  EXPECT_NE(key, Key(r));
  r = Reply(a_.string());
  r["name"] = "other";
  EXPECT_NE(key, Key(r));
}

TEST_F(TorchExtensionKeyTest, AMissingSourceIsNotFound) {
  fs::remove(a_ / "main.cpp");
  auto plan = TorchExtensionPlanFromJson(Reply(a_.string()));
  ASSERT_TRUE(plan.ok());
  auto key = TorchExtensionCacheKey(*plan);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), StatusCode::kNotFound);
  EXPECT_NE(key.status().message().find("main.cpp"), std::string::npos);
}

TEST(TorchPchTest, HeaderFlagsDropInputOutputDependenciesAndTheName) {
  std::vector<std::string> argv = {"c++",
                                   "-MMD",
                                   "-MF",
                                   "main.o.d",
                                   "-DTORCH_EXTENSION_NAME=addone",
                                   "-DTORCH_API_INCLUDE_EXTENSION_H",
                                   "-isystem",
                                   "/t/include",
                                   "-fPIC",
                                   "-std=c++17",
                                   "-O3",
                                   "-c",
                                   "/w/main.cpp",
                                   "-o",
                                   "main.o"};
  EXPECT_EQ(TorchPch::HeaderFlags(argv, "/w/main.cpp"),
            (std::vector<std::string>{"-DTORCH_API_INCLUDE_EXTENSION_H", "-isystem", "/t/include",
                                      "-fPIC", "-std=c++17", "-O3"}));
}

TEST(TorchPchTest, FindsTorchsIncludeFolder) {
  fs::path dir = MakeTempDir("/tmp", "hone-pch").value();
  ASSERT_TRUE(WriteFileAtomic(dir / "torch" / "extension.h", "#pragma once\n").ok());
  EXPECT_EQ(TorchPch::TorchIncludeDir({"c++", "-isystem", "/nope", "-isystem", dir.string()}), dir);
  EXPECT_EQ(TorchPch::TorchIncludeDir({"c++", "-I" + dir.string()}), dir);
  EXPECT_EQ(TorchPch::TorchIncludeDir({"c++", "-I/nope"}), fs::path());
  fs::remove_all(dir);
}

// A folder with torch/extension.h and a fake gcc that counts its header
// builds in <dir>/builds and takes `build_seconds` over each.
struct FakeTorch {
  fs::path dir, gcc;
  std::vector<std::string> argv;  // a compile of main.cpp with torch on the path

  explicit FakeTorch(int build_seconds) {
    dir = MakeTempDir("/tmp", "hone-pch").value();
    EXPECT_TRUE(WriteFileAtomic(dir / "include/torch/extension.h", "#pragma once\n").ok());
    gcc = dir / "fake-gcc";
    EXPECT_TRUE(WriteFileAtomic(gcc,
                                "#!/bin/sh\n"
                                "case \"$*\" in *-dM*) echo '#define __GNUC__ 12'; exit 0;; esac\n"
                                "case \"$*\" in *c++-header*) echo build >> " +
                                    (dir / "builds").string() + "; sleep " +
                                    std::to_string(build_seconds) +
                                    ";; esac\n"
                                    "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && : > \"$2\"; shift; "
                                    "done\n")
                    .ok());
    fs::permissions(gcc, fs::perms::owner_all);
    argv = {gcc.string(), "-I" + (dir / "include").string(), "-c", (dir / "main.cpp").string(),
            "-o",         (dir / "main.o").string()};
  }
  ~FakeTorch() { fs::remove_all(dir); }

  std::string Builds() const {
    auto text = ReadFile(dir / "builds");
    return text.ok() ? *text : "";
  }
  // Whether a header is in place in the precompiled headers' folder.
  // In place: a background build writes into a private "tmp" folder and
  // renames it, holding its lock until then.
  bool HeaderReady() const {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "pch", ec))
      if (e.path().filename().string().rfind("tmp", 0) != 0 &&
          fs::is_regular_file(e.path() / "torch" / "extension.h.gch", ec))
        return true;
    return false;
  }
  bool WaitForHeader(std::chrono::seconds limit) const {
    auto until = std::chrono::steady_clock::now() + limit;
    while (!HeaderReady() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return HeaderReady();
  }
};

// Two processes that need one header at once, each waiting for it: one
// builds it, the other waits and uses it (without the lock both would
// build).
TEST(TorchPchTest, TwoProcessesBuildOneHeaderOnce) {
  FakeTorch t(1);
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      TorchPch pch(t.dir / "pch", std::chrono::seconds(30), /*background=*/false);
      auto out = pch.Apply(t.argv, t.dir / "main.cpp", nullptr);
      _exit(out.size() == t.argv.size() + 2 ? 0 : 1);  // -I<header folder> -Winvalid-pch
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a process got no header";
  }
  EXPECT_EQ(t.Builds(), "build\n") << "one build for both processes";
}

// Off the critical path: the first compile goes without the header, which a
// detached process builds once the evaluation ends, even though the process
// that asked (a one-shot `hone eval`) has exited; the next compile takes it.
TEST(TorchPchTest, AMissingHeaderIsBuiltInTheBackgroundAndOutlivesTheProcessThatAsked) {
  FakeTorch t(1);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    TorchPch pch(t.dir / "pch", std::chrono::seconds(30));
    std::string note;
    auto out = pch.Apply(t.argv, t.dir / "main.cpp", &note);
    bool as_asked = out == t.argv && note.find("in the background") != std::string::npos;
    pch.StartWantedBuilds();  // the evaluation has its verdict
    _exit(as_asked ? 0 : 1);  // at once, while the header is still being built
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the first compile should go without the header, saying so";
  ASSERT_TRUE(t.WaitForHeader(std::chrono::seconds(20)))
      << "the detached build did not outlive the process that started it";
  TorchPch later(t.dir / "pch", std::chrono::seconds(30));
  std::string note;
  EXPECT_EQ(later.Apply(t.argv, t.dir / "main.cpp", &note).size(), t.argv.size() + 2) << note;
  EXPECT_EQ(t.Builds(), "build\n");
}

// While one header build runs, other compiles neither wait nor start a
// second one; WaitForBackgroundBuilds returns once it is in place.
TEST(TorchPchTest, WhileTheHeaderIsBeingBuiltOthersGoWithoutIt) {
  FakeTorch t(2);
  TorchPch first(t.dir / "pch", std::chrono::seconds(30));
  TorchPch second(t.dir / "pch", std::chrono::seconds(30));
  std::string note;
  EXPECT_EQ(first.Apply(t.argv, t.dir / "main.cpp", &note), t.argv) << note;
  EXPECT_FALSE(t.HeaderReady());
  first.StartWantedBuilds();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(second.Apply(t.argv, t.dir / "main.cpp", &note), t.argv);
  EXPECT_NE(note.find("another process is building it"), std::string::npos) << note;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "it waited";
  second.StartWantedBuilds();  // wants nothing: it was told another builds it
  first.WaitForBackgroundBuilds(std::chrono::seconds(20));
  EXPECT_TRUE(t.HeaderReady()) << "waited for the build to end";
  EXPECT_EQ(t.Builds(), "build\n");
}

// A header that fails to build is remembered and not tried again.
TEST(TorchPchTest, AHeaderThatFailsInTheBackgroundIsNotTriedAgain) {
  FakeTorch t(0);
  ASSERT_TRUE(WriteFileAtomic(t.gcc,
                              "#!/bin/sh\n"
                              "case \"$*\" in *-dM*) echo '#define __GNUC__ 12'; exit 0;; esac\n"
                              "echo build >> " +
                                  (t.dir / "builds").string() + "; echo 'no room' >&2; exit 1\n")
                  .ok());
  fs::permissions(t.gcc, fs::perms::owner_all);
  TorchPch pch(t.dir / "pch", std::chrono::seconds(30));
  EXPECT_EQ(pch.Apply(t.argv, t.dir / "main.cpp", nullptr), t.argv);
  pch.StartWantedBuilds();
  pch.WaitForBackgroundBuilds(std::chrono::seconds(20));
  std::string note;
  EXPECT_EQ(pch.Apply(t.argv, t.dir / "main.cpp", &note), t.argv);
  EXPECT_NE(note.find("failed to build before"), std::string::npos) << note;
  EXPECT_EQ(t.Builds(), "build\n");
  bool kept_log = false, left_tmp = false;
  for (const auto& e : fs::directory_iterator(t.dir / "pch")) {
    std::string name = e.path().filename().string();
    if (name.size() > 7 && name.substr(name.size() - 7) == ".failed")
      kept_log = ReadFile(e.path()).ok() &&
                 ReadFile(e.path()).value().find("no room") != std::string::npos;
    left_tmp = left_tmp || name.rfind("tmp", 0) == 0;
  }
  EXPECT_TRUE(kept_log) << "the .failed file keeps the compiler's message";
  EXPECT_FALSE(left_tmp) << "the private folder is removed";
}

}  // namespace
}  // namespace hone
