// Folders a root-run sandbox ('nobody') can reach, and where the oracle's
// bytecode goes.
#include "core/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace hone {
namespace {

struct Dir {
  fs::path path = MakeTempDir(fs::temp_directory_path(), "fs-test").value();
  ~Dir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
};

constexpr auto kOpen = fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec;

TEST(OthersCanReachTest, EveryFolderAboveMustLetOthersPass) {
  Dir d;
  fs::permissions(d.path, kOpen);
  fs::create_directories(d.path / "a" / "b");
  EXPECT_TRUE(OthersCanReach(d.path));
  EXPECT_TRUE(OthersCanReach(d.path / "a" / "b"));
  fs::permissions(d.path / "a", fs::perms::owner_all);
  EXPECT_FALSE(OthersCanReach(d.path / "a" / "b")) << "a private folder above it";
  EXPECT_FALSE(OthersCanReach(d.path / "a"));
  EXPECT_FALSE(OthersCanReach(d.path / "missing"));
  EXPECT_FALSE(OthersCanReach("relative/path"));
}

class PythonBytecodeDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* c = std::getenv("HONE_CACHE");
    saved_ = c ? c : "";
  }
  void TearDown() override { setenv("HONE_CACHE", saved_.c_str(), 1); }
  std::string saved_;
};

TEST_F(PythonBytecodeDirTest, TheCachesFolderWhereTheSandboxCanReadIt) {
  Dir d;
  fs::permissions(d.path, kOpen);
  setenv("HONE_CACHE", (d.path / "cache").c_str(), 1);
  EXPECT_EQ(PythonBytecodeDir(), d.path / "cache" / "python-bytecode");
}

// Root's cache in a private folder: a folder nobody else may write, that
// 'nobody' can read.
TEST_F(PythonBytecodeDirTest, AsRootAPrivateCacheGivesAFolderTheSandboxCanRead) {
  Dir d;  // 0700: private
  setenv("HONE_CACHE", (d.path / "cache").c_str(), 1);
  fs::path dir = PythonBytecodeDir();
  if (geteuid() != 0) {
    EXPECT_EQ(dir, d.path / "cache" / "python-bytecode") << "the sandbox runs as this user";
    return;
  }
  EXPECT_EQ(dir, "/var/tmp/hone-python-bytecode-0");
  EXPECT_TRUE(OthersCanReach(dir));
  struct stat st {};
  ASSERT_EQ(lstat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & (S_IWGRP | S_IWOTH), 0u);
}

}  // namespace
}  // namespace hone
