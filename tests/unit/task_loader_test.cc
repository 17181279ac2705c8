#include "task/task_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "core/fs.h"
#include "support/builtin_tasks.h"

namespace hone {
namespace {

class TaskLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = *MakeTempDir(std::filesystem::temp_directory_path(), "hone-task-test");
    std::ofstream(dir_ / "reference.cpp") << "// reference\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Result<Task> Load(const std::string& toml) {
    std::ofstream(dir_ / "task.toml") << toml;
    return hone::testing::LoadBuiltInTask(dir_);
  }
  // Expects a failure whose message names the file and contains `what`.
  void ExpectError(const std::string& toml, const std::string& what) {
    auto t = Load(toml);
    ASSERT_FALSE(t.ok()) << "expected an error containing: " << what;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(t.status().message().find("task.toml"), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find(what), std::string::npos) << t.status().message();
  }

  std::filesystem::path dir_;
};

const char* kGood = R"TOML(
name = "conv"
category = "conv"
[[inputs]]
name = "x"
dtype = "f32"
shape = ["N", "H"]
[[inputs]]
name = "idx"
dtype = "i64"
shape = [4]
values = "randint(0, H)"
[[outputs]]
name = "y"
dtype = "f32"
shape = ["N", "H - K + 1"]
[[cases]]
N = 2
H = 10
K = 3
[[cases]]
N = 1
H = 5
K = 5
[tolerance]
atol = 1e-3
[cost]
bytes = "4 * N * H"
flops = 100
)TOML";

TEST_F(TaskLoaderTest, LoadsAGoodTask) {
  auto t = Load(kGood);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->name, "conv");
  EXPECT_EQ(t->inputs.size(), 2u);
  EXPECT_EQ(t->inputs[0].values.size(), 2u);  // float default: two distributions
  EXPECT_EQ(t->num_distributions, 2);
  EXPECT_EQ(t->cases.size(), 2u);
  EXPECT_EQ(t->cases[0].label, "H=10 K=3 N=2");
  EXPECT_EQ(*ResolveShape(t->outputs[0], t->cases[0]), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(*ResolveShape(t->outputs[0], t->cases[1]), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(t->ToleranceFor(HONE_F32).atol, 1e-3);
  EXPECT_EQ(t->ToleranceFor(HONE_F32).rtol, 1e-4);  // default kept
  EXPECT_EQ(t->seeds, 3);
  EXPECT_EQ(t->hash.size(), 32u);
}

// The devices a task may name are the registered backends' (TaskDevicesOf):
// a device registered beside the built-in ones is a device like them, its
// reference under its own key or its default file, and an unknown one is
// refused with the names known.
TEST_F(TaskLoaderTest, TheDevicesItMayNameAreThoseGiven) {
  const std::vector<TaskDevice> devices = {
      {"cpu", "reference.cpp"}, {"cuda", "reference.cu"}, {"hip", "reference.hip"}};
  std::ofstream(dir_ / "reference.hip") << "// reference for hip\n";
  std::ofstream(dir_ / "task.toml")
      << std::string(kGood) << "[[cases]]\nbackends = [\"hip\"]\nN = 1\nH = 4\nK = 1\n";
  auto t = LoadNativeTask(dir_, devices);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->CasesFor("hip").size(), 3u);
  EXPECT_EQ(t->CasesFor("cuda").size(), 2u);
  EXPECT_EQ(t->ReferenceFor("hip").value(), dir_ / "reference.hip");
  auto cuda = t->ReferenceFor("cuda");
  ASSERT_FALSE(cuda.ok());
  EXPECT_NE(cuda.status().message().find("the task has no CUDA reference (reference.cu)"),
            std::string::npos)
      << cuda.status().message();
  EXPECT_FALSE(t->ReferenceFor("tpu").ok());
  // The built-in devices know no hip.
  auto builtin = hone::testing::LoadBuiltInTask(dir_);
  ASSERT_FALSE(builtin.ok());
  EXPECT_NE(builtin.status().message().find("expected \"cpu\" or \"cuda\", got \"hip\""),
            std::string::npos)
      << builtin.status().message();
  std::ofstream(dir_ / "task.toml")
      << std::string(kGood) << "[[cases]]\nbackends = [\"tpu\"]\nN = 1\nH = 4\nK = 1\n";
  auto tpu = LoadNativeTask(dir_, devices);
  ASSERT_FALSE(tpu.ok());
  EXPECT_NE(tpu.status().message().find("expected \"cpu\", \"cuda\" or \"hip\", got \"tpu\""),
            std::string::npos)
      << tpu.status().message();
  // Its reference named under its own key.
  std::filesystem::rename(dir_ / "reference.hip", dir_ / "kernel_hip.cpp");
  std::ofstream(dir_ / "task.toml") << "hip_reference = \"kernel_hip.cpp\"\n" << kGood;
  auto named = LoadNativeTask(dir_, devices);
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->ReferenceFor("hip").value(), dir_ / "kernel_hip.cpp");
  // The hash of a task without a reference for a device the built-in ones
  // lack is the same whether that device is known or not.
  std::ofstream(dir_ / "task.toml") << kGood;
  auto with_hip = LoadNativeTask(dir_, devices);
  auto without = hone::testing::LoadBuiltInTask(dir_);
  ASSERT_TRUE(with_hip.ok() && without.ok());
  EXPECT_EQ(with_hip->hash, without->hash);
}

TEST_F(TaskLoaderTest, SyntaxErrorNamesLineAndColumn) {
  ExpectError("name = \"x\"\n[[inputs]\n", "task.toml:2:");
}

TEST_F(TaskLoaderTest, UnknownFieldIsNamed) {
  std::string t = kGood;
  t += "[tolerence]\natol = 1\n";
  ExpectError(t, "tolerence: unknown field");
}

TEST_F(TaskLoaderTest, BadDtypeIsNamed) {
  std::string t = kGood;
  t.replace(t.find("dtype = \"f32\""), 13, "dtype = \"f33\"");
  ExpectError(t, "inputs[0].dtype: unknown dtype 'f33'");
}

TEST_F(TaskLoaderTest, UnknownSymbolInShapeIsNamed) {
  std::string t = kGood;
  t.replace(t.find("shape = [\"N\", \"H\"]"), 18, "shape = [\"N\", \"M\"]");
  ExpectError(t, "inputs[0].shape[1]: unknown symbol 'M'");
}

TEST_F(TaskLoaderTest, NegativeShapeIsNamed) {
  std::string t = kGood;
  t.replace(t.find("K = 5"), 5, "K = 9");
  ExpectError(t, "outputs[0].shape[1]: negative size");
}

TEST_F(TaskLoaderTest, MissingPiecesAreNamed) {
  ExpectError("[[outputs]]\nname='y'\ndtype='f32'\nshape=[1]\n", "cases: at least one");
  ExpectError("[[cases]]\nN=1\n", "outputs: at least one");
  std::string t = kGood;
  t.replace(t.find("name = \"idx\""), 12, "name = \"x\"");
  ExpectError(t, "inputs[1].name: duplicate name 'x'");
}

TEST_F(TaskLoaderTest, IntegerInputsNeedADistribution) {
  std::string t = kGood;
  t.erase(t.find("values = \"randint(0, H)\""), 24);
  ExpectError(t, "inputs[1].values: integer inputs need a distribution");
}

TEST_F(TaskLoaderTest, BadDistributionIsNamed) {
  std::string t = kGood;
  t.replace(t.find("randint(0, H)"), 13, "randint(0, Q)");
  ExpectError(t, "inputs[1].values[0]: unknown symbol 'Q'");
  t = kGood;
  t.replace(t.find("randint(0, H)"), 13, "poisson(3)");
  ExpectError(t, "inputs[1].values[0]: distribution 'poisson(3)'");
}

TEST_F(TaskLoaderTest, TooFewSeedsIsRejected) {
  std::string t = kGood;
  t += "[verify]\nseeds = 1\n";
  ExpectError(t, "verify.seeds");
}

TEST_F(TaskLoaderTest, MissingReferenceIsNamed) {
  std::filesystem::remove(dir_ / "reference.cpp");
  ExpectError(kGood, "reference: file");
}

TEST_F(TaskLoaderTest, NotATaskFolder) {
  auto t = hone::testing::LoadBuiltInTask(dir_ / "nope");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("nope: no such task (not found)"), std::string::npos)
      << t.status().message();
  std::filesystem::create_directories(dir_ / "empty");
  auto empty = hone::testing::LoadBuiltInTask(dir_ / "empty");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("not a native task (no task.toml"), std::string::npos)
      << empty.status().message();
  auto file = hone::testing::LoadBuiltInTask(dir_ / "reference.cpp");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("reference.cpp: not a task"), std::string::npos)
      << file.status().message();
}

TEST_F(TaskLoaderTest, AFolderOfTasksSaysSo) {
  Load(kGood);
  std::filesystem::path suite = dir_ / "suite";
  std::filesystem::create_directories(suite / "conv");
  for (const char* f : {"task.toml", "reference.cpp"})
    std::filesystem::copy_file(dir_ / f, suite / "conv" / f);
  auto t = hone::testing::LoadBuiltInTask(suite);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("it holds task folders, such as"), std::string::npos)
      << t.status().message();
}

TEST_F(TaskLoaderTest, ATaskTomlPathMeansItsFolder) {
  Load(kGood);
  auto t = hone::testing::LoadBuiltInTask(dir_ / "task.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->name, "conv");
  EXPECT_EQ(t->dir, dir_.lexically_normal());
}

// A value of the wrong type is named with its line, what was expected and
// what was found, rather than reported as missing.
TEST_F(TaskLoaderTest, WrongTypesSayWhatWasFoundAndWhere) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string t = kGood;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  ExpectError(with("shape = [\"N\", \"H\"]", "shape = \"N, H\""),
              "task.toml:7: inputs[0].shape: expected an array of strings or integers");
  ExpectError(with("shape = [\"N\", \"H\"]", "shape = \"N, H\""), "got a string");
  ExpectError(with("dtype = \"f32\"", "dtype = 32"),
              "task.toml:6: inputs[0].dtype: expected a string, got an integer");
  ExpectError(with("name = \"conv\"", "name = 7"),
              "task.toml:2: name: expected a string, got an integer");
  ExpectError(with("name = \"x\"", "name = [\"x\"]"),
              "task.toml:5: inputs[0].name: expected a string, got an array");
  ExpectError(with("values = \"randint(0, H)\"", "values = 3"),
              "task.toml:12: inputs[1].values: expected a string or an array of strings, got an "
              "integer");
  ExpectError(with("N = 2\n", "N = 2.5\n"),
              "task.toml:18: cases[0].N: expected an integer, got a floating-point number");
  ExpectError(with("atol = 1e-3", "atol = \"loose\""),
              "task.toml:26: tolerance.atol: expected a number >= 0, got a string");
  ExpectError(with("flops = 100", "flops = true"),
              "task.toml:29: cost.flops: expected a number or an expression string, got a boolean");
  ExpectError(std::string(kGood) + "[verify]\nseeds = \"3\"\n",
              "verify.seeds: expected an integer from 3 to 1000, got a string");
  ExpectError(std::string(kGood) + "[verify]\nseeds = 2\n", "from 3 to 1000, got 2");
  ExpectError("tolerance = 1e-3\n" + with("[tolerance]\natol = 1e-3", ""),
              "tolerance: expected a table, got a floating-point number");
  ExpectError(with("[[cases]]\nN = 1", "[[cases]]\nbackends = \"cuda\"\nN = 1"),
              "cases[1].backends: expected an array such as [\"cuda\"], got a string");
  ExpectError(with("[[cases]]\nN = 1", "[[cases]]\nbackends = [\"tpu\"]\nN = 1"),
              "cases[1].backends[0]: expected \"cpu\" or \"cuda\", got \"tpu\"");
  ExpectError("cases = \"N=1\"\n[[outputs]]\nname='y'\ndtype='f32'\nshape=[1]\n",
              "task.toml:1: cases: expected an array of tables ([[cases]]), got a string");
  ExpectError("[inputs]\nname='x'\n[[outputs]]\nname='y'\ndtype='f32'\nshape=[1]\n",
              "inputs: expected an array of tables ([[inputs]]), got a table");
}

}  // namespace
}  // namespace hone

namespace hone {
namespace {

class TaskLoaderLintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("hone-lint-task-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "reference.cpp") << "// reference\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Result<Task> Load(const std::string& lint) {
    std::ofstream(dir_ / "task.toml")
        << "name = \"t\"\n[[inputs]]\nname = \"a\"\ndtype = \"f32\"\nshape = [\"N\"]\n"
           "[[outputs]]\nname = \"o\"\ndtype = \"f32\"\nshape = [\"N\"]\n[[cases]]\nN = 8\n"
        << lint;
    return hone::testing::LoadBuiltInTask(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(TaskLoaderLintTest, AllowListIsRead) {
  auto t = Load("[lint]\nallow = [\"library\", \"stream\"]\n");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->lint_allow, (std::set<std::string>{"library", "stream"}));
  auto none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->lint_allow.empty());
}

TEST_F(TaskLoaderLintTest, AllowMustBeAnArrayOfNames) {
  auto t = Load("[lint]\nallow = \"library\"\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(
                "task.toml:13: lint.allow: expected an array of rule names, got a string"),
            std::string::npos)
      << t.status().message();
}

TEST_F(TaskLoaderLintTest, UnknownRuleIsNamed) {
  auto t = Load("[lint]\nallow = [\"library\", \"everything\"]\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("lint.allow[1]: unknown lint rule 'everything'"),
            std::string::npos)
      << t.status().message();
  auto bad = Load("[lint]\nallowed = [\"library\"]\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("lint.allowed"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace hone
