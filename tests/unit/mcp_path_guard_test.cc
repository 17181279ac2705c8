// Which files an MCP client may name (src/mcp/path_guard.h): those under
// the server's roots, after links and ".." are followed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/fs.h"
#include "core/temp_dir.h"
#include "mcp/path_guard.h"

namespace hone::mcp {
namespace {

namespace fs = std::filesystem;

class McpPathGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root() / "tasks");
    fs::create_directories(outside());
    std::ofstream(root() / "tasks" / "a.cpp") << "x";
    std::ofstream(outside() / "secret.cpp") << "x";
    fs::create_symlink(outside() / "secret.cpp", root() / "link.cpp");
  }
  fs::path root() const { return dir_.path() / "root"; }
  fs::path outside() const { return dir_.path() / "outside"; }
  TempDirOwner dir_{MakeTempDir(fs::temp_directory_path(), "mcp-guard-").value()};
};

TEST_F(McpPathGuardTest, ResolvesPathsUnderARoot) {
  auto guard = PathGuard::Make({root().string()}).value();
  auto relative = guard.Existing("candidate", "tasks/a.cpp");
  ASSERT_TRUE(relative.ok()) << relative.status().message();
  EXPECT_EQ(*relative, fs::canonical(root() / "tasks" / "a.cpp"));
  EXPECT_TRUE(guard.Existing("candidate", (root() / "tasks" / "a.cpp").string()).ok());
}

TEST_F(McpPathGuardTest, RefusesWhatLiesOutsideNamingTheArgument) {
  auto guard = PathGuard::Make({root().string()}).value();
  auto dotdot = guard.Existing("candidate", "../outside/secret.cpp");
  ASSERT_FALSE(dotdot.ok());
  EXPECT_NE(dotdot.status().message().find("candidate:"), std::string::npos);
  EXPECT_NE(dotdot.status().message().find("outside the folders"), std::string::npos);
  EXPECT_FALSE(guard.Existing("candidate", "link.cpp").ok()) << "a link out of the root";
  EXPECT_FALSE(guard.Existing("problem", "/etc/passwd").ok());
  // A sibling whose name starts like the root's is not under it.
  fs::create_directories(dir_.path() / "root2");
  EXPECT_FALSE(guard.Existing("problem", (dir_.path() / "root2").string()).ok());
}

TEST_F(McpPathGuardTest, SaysAMissingFileIsMissing) {
  auto guard = PathGuard::Make({root().string()}).value();
  auto missing = guard.Existing("problem", "tasks/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "problem: tasks/nope: no such file or folder");
}

TEST_F(McpPathGuardTest, WritableNeedsAnExistingFolderUnderARoot) {
  auto guard = PathGuard::Make({root().string()}).value();
  EXPECT_TRUE(guard.Writable("output", "tasks/new.html").ok());
  EXPECT_FALSE(guard.Writable("output", "nofolder/new.html").ok());
  EXPECT_FALSE(guard.Writable("output", (outside() / "x.html").string()).ok());
  EXPECT_FALSE(guard.Writable("output", "link.cpp").ok()) << "writing through a link";
}

TEST_F(McpPathGuardTest, RootsMustExist) {
  auto bad = PathGuard::Make({(dir_.path() / "nope").string()});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--root"), std::string::npos);
  EXPECT_TRUE(PathGuard::Make({}).ok()) << "no roots: the working folder";
}

TEST(McpFileUriTest, ReadsLocalFileUris) {
  EXPECT_EQ(PathOfFileUri("file:///home/a%20b/k"), "/home/a b/k");
  EXPECT_EQ(PathOfFileUri("file://localhost/srv"), "/srv");
  EXPECT_EQ(PathOfFileUri("file://elsewhere/srv"), std::nullopt);
  EXPECT_EQ(PathOfFileUri("https://example.com/x"), std::nullopt);
}

}  // namespace
}  // namespace hone::mcp
