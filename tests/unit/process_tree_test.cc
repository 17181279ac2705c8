// Which processes are this one's own (src/core/process_tree.h): a neighbour
// on the GPU is any process that is not this one nor descends from it.
#include "core/process_tree.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

namespace hone {
namespace {

TEST(ProcessTreeTest, FollowsParentsUpToTheRoot) {
  const std::map<pid_t, pid_t> parents = {{40, 30}, {30, 20}, {20, 1}, {50, 1}};
  auto parent_of = [&](pid_t p) {
    auto it = parents.find(p);
    return it == parents.end() ? 0 : it->second;
  };
  EXPECT_TRUE(DescendsFrom(40, 20, parent_of));
  EXPECT_TRUE(DescendsFrom(20, 20, parent_of));
  EXPECT_FALSE(DescendsFrom(50, 20, parent_of));
  EXPECT_FALSE(DescendsFrom(99, 20, parent_of)) << "a pid /proc does not show is not ours";
}

TEST(ProcessTreeTest, ReadsTheRealParentFromProc) {
  EXPECT_EQ(ParentOf(getpid()), getppid());
  EXPECT_EQ(ParentOf(0x7ffffff0), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  EXPECT_TRUE(DescendsFrom(child, getpid()));
  EXPECT_FALSE(DescendsFrom(getppid(), getpid()));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST(ProcessTreeTest, NamesTheProgramAProcessRunsInFull) {
  // Named like CUDA MPS's server, longer than the 15 characters /proc's comm keeps.
  const std::string dir = ::testing::TempDir() + "/program_of";
  std::filesystem::create_directories(dir);
  const std::string program = dir + "/nvidia-cuda-mps-server";
  std::filesystem::copy_file("/bin/sleep", program,
                             std::filesystem::copy_options::overwrite_existing);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(program.c_str(), program.c_str(), "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string seen;
  for (int i = 0; i < 200 && seen != "nvidia-cuda-mps-server"; ++i) {
    seen = ProgramOf(child);  // the fork's copy of this program until it execs
    usleep(10000);
  }
  EXPECT_EQ(seen, "nvidia-cuda-mps-server");
  EXPECT_EQ(ProgramOf(0x7ffffff0), "");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace hone
