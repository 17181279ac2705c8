#include "core/file_lock.h"

#include <gtest/gtest.h>

#include "core/fs.h"

namespace hone {
namespace {

TEST(FileLockTest, ASecondHolderWaitsUntilTheFirstLets) {
  fs::path dir = MakeTempDir("/tmp", "hone-lock").value();
  fs::path path = dir / "work.lock";
  {
    FileLock first(path, std::chrono::milliseconds(0));
    ASSERT_TRUE(first.held());
    // flock belongs to the open file: a second open waits like another process.
    FileLock second(path, std::chrono::milliseconds(120));
    EXPECT_FALSE(second.held());
  }
  FileLock after(path, std::chrono::milliseconds(0));
  EXPECT_TRUE(after.held());
  fs::remove_all(dir);
}

TEST(FileLockTest, AFileThatCannotBeOpenedIsALockNotHeld) {
  FileLock lock("/nonexistent-folder/work.lock", std::chrono::milliseconds(60));
  EXPECT_FALSE(lock.held());
}

}  // namespace
}  // namespace hone
