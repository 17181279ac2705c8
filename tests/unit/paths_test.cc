// Where hone finds its own files (core/paths.h): a variable overrides, and
// one naming a folder without the file is an error that says so.
#include "core/paths.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/fs.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// Sets a variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

class PathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = MakeTempDir(fs::temp_directory_path(), "hone-paths");
    ASSERT_TRUE(d.ok()) << d.status().message();
    dir_ = *d;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(PathsTest, WithoutVariablesEveryFileIsFound) {
  for (const char* v : {"HONE_INCLUDE_DIR", "HONE_PROMPTS", "HONE_PYTHON_DIR"}) unsetenv(v);
  auto include = FindIncludeDir();
  ASSERT_TRUE(include.ok()) << include.status().message();
  EXPECT_TRUE(fs::is_regular_file(*include / "hone" / "kernel.h"));
  auto prompts = FindPromptsDir();
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  EXPECT_TRUE(fs::is_regular_file(*prompts / "system.txt"));
  auto python = FindPythonDir();
  ASSERT_TRUE(python.ok()) << python.status().message();
  EXPECT_TRUE(fs::is_regular_file(*python / "hone_oracle.py"));
}

TEST_F(PathsTest, AVariableOverrides) {
  fs::create_directories(dir_ / "hone");
  ASSERT_TRUE(WriteFileAtomic(dir_ / "hone" / "kernel.h", "/* mine */\n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "system.txt", "mine\n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "hone_oracle.py", "# mine\n").ok());
  ScopedEnv include("HONE_INCLUDE_DIR", dir_.string());
  ScopedEnv prompts("HONE_PROMPTS", dir_.string());
  ScopedEnv python("HONE_PYTHON_DIR", dir_.string());
  EXPECT_EQ(FindIncludeDir().value(), dir_);
  EXPECT_EQ(FindPromptsDir().value(), dir_);
  EXPECT_EQ(FindPythonDir().value(), dir_);
}

TEST_F(PathsTest, AVariableNamingAFolderWithoutTheFileIsAnError) {
  ScopedEnv include("HONE_INCLUDE_DIR", dir_.string());
  ScopedEnv prompts("HONE_PROMPTS", (dir_ / "missing").string());
  auto i = FindIncludeDir();
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.status().message(), "HONE_INCLUDE_DIR=" + dir_.string() + ": no hone/kernel.h there");
  auto p = FindPromptsDir();
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("HONE_PROMPTS="), std::string::npos);
  EXPECT_NE(p.status().message().find("no system.txt there"), std::string::npos);
}

TEST_F(PathsTest, TheSandboxIsNextToTheRunningBinaryUnlessAVariableSaysOtherwise) {
  ScopedEnv sandbox("HONE_SANDBOX", (dir_ / "nothing").string());
  auto s = FindSandboxExecutable();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("HONE_SANDBOX="), std::string::npos);
  EXPECT_FALSE(ExecutableDir().empty());
}

}  // namespace
}  // namespace hone
