// SpawnDetached: the process outlives its starter's interest in it, in a
// session of its own, with only the descriptor it was given.
#include "core/detached_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/fs.h"
#include "core/temp_dir.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

std::string WaitForText(const fs::path& file, std::chrono::seconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto text = ReadFile(file);
    if (text.ok() && !text->empty() && text->back() == '\n') return *text;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

TEST(DetachedProcessTest, RunsInASessionOfItsOwnWithOnlyTheKeptDescriptor) {
  TempDirOwner dir(MakeTempDir("/tmp", "hone-detached").value());
  const fs::path out = dir.path() / "out";
  int kept = open((dir.path() / "kept").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(kept, 0);
  // Not close-on-exec, and far from what a shell uses: still not passed on.
  int other = fcntl(open("/dev/null", O_RDONLY), F_DUPFD, 200);
  ASSERT_GE(other, 200);
  // Its session and its parent (/proc/PID/stat: pid (comm) state ppid pgrp
  // session), and whether it has descriptors 3 and `other`.
  const std::string o = std::to_string(other);
  auto pid =
      SpawnDetached({"/bin/sh", "-c",
                     "set -- $(cat /proc/$$/stat); k=no; l=no; [ -e /proc/$$/fd/3 ] && k=yes; "
                     "[ -e /proc/$$/fd/" +
                         o + " ] && l=yes; echo \"$6 $4 kept=$k leaked=$l\" > " + out.string()},
                    kept);
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  std::string text = WaitForText(out, std::chrono::seconds(10));
  ASSERT_FALSE(text.empty());
  int sid = 0, ppid = 0;
  ASSERT_EQ(std::sscanf(text.c_str(), "%d %d", &sid, &ppid), 2) << text;
  EXPECT_NE(sid, getsid(0)) << "a session of its own";
  EXPECT_NE(ppid, getpid()) << "not this process's child";
  EXPECT_NE(text.find("kept=yes"), std::string::npos) << text;
  EXPECT_NE(text.find("leaked=no"), std::string::npos) << text;
  close(kept);
  close(other);
}

// A flock handed over stays held while the detached process lives.
TEST(DetachedProcessTest, AHandedOverLockStaysHeldUntilItExits) {
  TempDirOwner dir(MakeTempDir("/tmp", "hone-detached").value());
  const fs::path lock = dir.path() / "lock";
  int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_TRUE(SpawnDetached({"sleep", "1"}, fd).ok());
  close(fd);
  int probe = open(lock.c_str(), O_RDWR | O_CLOEXEC);
  EXPECT_NE(flock(probe, LOCK_EX | LOCK_NB), 0) << "released with this process's copy";
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool freed = false;
  while (!freed && std::chrono::steady_clock::now() < until) {
    freed = flock(probe, LOCK_EX | LOCK_NB) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(freed) << "still held after the detached process ended";
  close(probe);
}

TEST(DetachedProcessTest, AProgramThatCannotRunIsNotFound) {
  auto pid = SpawnDetached({"/nonexistent/hone-no-such-program"});
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), StatusCode::kNotFound);
  EXPECT_NE(pid.status().message().find("hone-no-such-program"), std::string::npos);
}

}  // namespace
}  // namespace hone
