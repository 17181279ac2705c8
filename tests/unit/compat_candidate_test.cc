// What hone reads from a compat (KernelBench ModelNew) candidate without
// running it, the runtime it takes from the oracle's hello, and the shim it
// writes.
#include "compat/compat_candidate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/subprocess.h"

namespace hone {
namespace {

// The shim's embedded sources are string literals (fast to compile): every
// byte, quotes, backslashes, trigraph-like "??=", a digit after an escape
// and lines ending in a backslash come back as they went in.
TEST(CompatShimTest, AByteArrayDefinitionHoldsEveryByte) {
  std::string bytes = "print(\"a\\\\b\")\n?\?=?\?/\n\\\nline\\";
  for (int c = 1; c < 256; ++c) {
    bytes += static_cast<char>(c);
    bytes += '7';  // a digit after each byte: an escape must not swallow it
  }
  const std::string source = CByteArrayDefinition("kData", bytes) +
                             "#include <cstdio>\n"
                             "int main() {\n"
                             "  std::fwrite(kData, 1, sizeof kData - 1, stdout);\n"
                             "  return kData[sizeof kData - 1];\n"
                             "}\n";
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(), "hone-byte-array");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileAtomic(*dir / "t.cc", source).ok());
  auto built = RunCommand({"g++", "-std=c++20", "-Wall", "-Werror", "-o", (*dir / "t").string(),
                           (*dir / "t.cc").string()});
  ASSERT_TRUE(built.ok() && built->succeeded()) << (built.ok() ? built->output : "no g++");
  auto ran = RunCommand({(*dir / "t").string()});
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(ran->exit_code, 0) << "no terminating zero";
  EXPECT_EQ(ran->output, bytes);
  std::filesystem::remove_all(*dir);
}

// What a Triton file's first call compiled, in the verdict's words: kernels
// its earlier evaluation compiled are said to be loaded (the first call's
// time is then no compile time).
TEST(CompatEventsTest, TheFirstCallsKernelsAreNamedWithWhatWasLoaded) {
  const std::string log =
      "noise\n"
      R"(hone-compat-event: {"event": "jit_kernels", "kernels": [{"name": "matmul", "compiled": 2, )"
      R"("stored": 2, "configs": 2, "tuning_seconds": 0.25, "best": "BLOCK_M: 128"}, )"
      R"({"name": "relu", "compiled": 1}]})"
      "\n";
  CompatEvents e = ReadCompatEvents(log);
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0].kind, NoteKind::kBuild);
  EXPECT_EQ(e.notes[0].text,
            "kernels compiled by its first call: matmul (2 compiled, 2 of them loaded from an "
            "earlier evaluation of this file) autotuned over 2 configs in 0.25 s (chose BLOCK_M: "
            "128); relu (1 compiled)");
}

// A reason the runner reported is capped, and the cap never falls inside a
// UTF-8 character (the verdict would then hold a stray byte).
TEST(CompatEventsTest, ACappedReasonIsNeverCutInsideACharacter) {
  const std::string reason = std::string(1999, 'a') + "\xc3\xa9" + std::string(100, 'b');
  const std::string log = "hone-compat-event: " +
                          nlohmann::json({{"event", "call_failed"}, {"reason", reason}}).dump() +
                          "\n";
  CompatEvents e = ReadCompatEvents(log);
  ASSERT_TRUE(e.call_failed);
  EXPECT_EQ(e.call_failed->reason, std::string(1999, 'a') + " [...]");
}

TEST(CompatRuntimeTest, NeedsASharedLibpython) {
  auto dir = MakeTempDir("/tmp", "compat-test").value();
  ASSERT_TRUE(WriteFileAtomic(dir / "hone_compat.py", "x = 1\n").ok());
  nlohmann::json hello = {
      {"executable", "/opt/venv/bin/python3"},
      {"runtime",
       {{"libpython", nullptr}, {"base_prefix", "/usr"}, {"sys_path", {"/usr/lib/python3.11"}}}}};
  auto none = CompatRuntimeFromHello(hello, dir);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(none.status().message().find("libpython"), std::string::npos);
  hello["runtime"]["libpython"] = "/usr/lib/libpython3.11.so.1.0";
  auto rt = CompatRuntimeFromHello(hello, dir);
  ASSERT_TRUE(rt.ok()) << rt.status().message();
  EXPECT_EQ(rt->home, "/usr");
  EXPECT_EQ(rt->bin_dir, "/opt/venv/bin");
  std::vector<std::string> env = CompatEnvironment(*rt);
  EXPECT_NE(std::find(env.begin(), env.end(), "PYTHONHOME=/usr"), env.end());
  bool venv_first = false;
  for (const auto& e : env) venv_first |= e.rfind("PATH=/opt/venv/bin:", 0) == 0;
  EXPECT_TRUE(venv_first) << "a venv keeps ninja beside its python";
  std::filesystem::remove_all(dir);
}

// The oracle's bytecode folder is read by the sandbox where its user can
// reach it; as root ('nobody' in the sandbox) a private folder is left out.
TEST(CompatRuntimeTest, TheSandboxReadsTheOraclesBytecodeWhereItCan) {
  namespace fs = std::filesystem;
  auto dir = MakeTempDir("/tmp", "compat-test").value();
  fs::permissions(dir, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  ASSERT_TRUE(WriteFileAtomic(dir / "hone_compat.py", "x = 1\n").ok());
  fs::create_directories(dir / "bytecode");
  nlohmann::json hello = {{"executable", "/usr/bin/python3"},
                          {"runtime",
                           {{"libpython", "/usr/lib/libpython3.11.so.1.0"},
                            {"base_prefix", "/usr"},
                            {"pycache_prefix", (dir / "bytecode").string()}}}};
  auto rt = CompatRuntimeFromHello(hello, dir);
  ASSERT_TRUE(rt.ok()) << rt.status().message();
  const std::string want = "PYTHONPYCACHEPREFIX=" + (dir / "bytecode").string();
  auto env = CompatEnvironment(*rt);
  auto reads = CompatReadDirs(*rt);
  EXPECT_NE(std::find(env.begin(), env.end(), want), env.end());
  EXPECT_NE(std::find(reads.begin(), reads.end(), (dir / "bytecode").string()), reads.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "PYTHONDONTWRITEBYTECODE=1"), env.end())
      << "the sandbox reads the folder, never writes it";

  fs::permissions(dir, fs::perms::owner_all);  // a private folder above it
  env = CompatEnvironment(*rt);
  EXPECT_EQ(std::find(env.begin(), env.end(), want) != env.end(), geteuid() != 0);

  rt->pycache_prefix = (dir / "missing").string();
  EXPECT_EQ(SandboxBytecodeDir(*rt), "");
  rt->pycache_prefix.clear();
  EXPECT_EQ(SandboxBytecodeDir(*rt), "");
  fs::remove_all(dir);
}

TEST(CompatShimTest, NeedsAPyTorchTaskAndIsDeterministic) {
  auto dir = MakeTempDir("/tmp", "compat-shim").value();
  ASSERT_TRUE(WriteFileAtomic(dir / "hone_compat.py", "def hone_compat_load(c): return 0\n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "hone_compat_call.py", "def call(address): return 0\n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "problem.py", "class Model: pass\n").ok());
  ASSERT_TRUE(
      WriteFileAtomic(dir / "cand.py", "x = ')\"SHIM\" \\\\'\nclass ModelNew: pass\n").ok());
  CompatRuntime rt;
  rt.libpython = "/usr/lib/libpython3.so";
  rt.runner = dir / "hone_compat.py";
  Task native;
  native.dir = dir;
  EXPECT_FALSE(WriteCompatShim(native, dir / "cand.py", rt, dir / "out").ok());
  Task t;
  t.cases.push_back({});
  t.pytorch = PyTorchInfo{};
  t.pytorch->file = dir / "problem.py";
  t.pytorch->device = "cpu";
  auto a = WriteCompatShim(t, dir / "cand.py", rt, dir / "out");
  auto b = WriteCompatShim(t, dir / "cand.py", rt, dir / "out");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  std::string text = ReadFile(*a).value();
  EXPECT_NE(text.find("hone_forward"), std::string::npos);
  // Embedded (in the config's JSON) as an escaped literal
  // (AByteArrayDefinitionHoldsEveryByte): the candidate's quotes cannot end it.
  EXPECT_NE(text.find("class ModelNew"), std::string::npos);
  EXPECT_EQ(text.find("')\"SHIM\""), std::string::npos) << "a quote left unescaped";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hone
