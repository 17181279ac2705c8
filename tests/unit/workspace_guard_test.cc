#include "sandbox/workspace_guard.h"

#include <gtest/gtest.h>

#include <vector>

namespace hone::sandbox {
namespace {

// An allocation laid out as the sandbox lays it out, canaries in place.
struct Laid {
  explicit Laid(size_t bytes) : bytes(bytes), all(WorkspaceAllocationBytes(bytes), 0) {
    std::fill(all.begin(), all.begin() + kWorkspaceGuardBytes, kWorkspaceCanary);
    std::fill(all.begin() + kWorkspaceGuardBytes + bytes, all.end(), kWorkspaceCanary);
  }
  unsigned char* workspace() { return all.data() + kWorkspaceGuardBytes; }
  std::string Hit() { return DescribeWorkspaceGuardHit(all.data(), workspace() + bytes, bytes); }
  size_t bytes;
  std::vector<unsigned char> all;
};

TEST(WorkspaceGuardTest, TheTailStartsRightAfterTheLastRequestedByte) {
  EXPECT_EQ(WorkspaceAllocationBytes(1000), 2 * kWorkspaceGuardBytes + 1024);
  EXPECT_EQ(WorkspaceTailGuardBytes(1000), kWorkspaceGuardBytes + 24);
  EXPECT_EQ(WorkspaceTailGuardBytes(1024), kWorkspaceGuardBytes);
}

TEST(WorkspaceGuardTest, WritesInsideAreFineAndOutsideAreNamed) {
  Laid w(1000);
  std::fill(w.workspace(), w.workspace() + 1000, 0x11);  // every byte of its own: allowed
  EXPECT_EQ(w.Hit(), "");
  w.workspace()[1000] = 0;  // the first byte past the end, inside the rounding
  EXPECT_EQ(
      w.Hit(),
      "wrote outside its workspace of 1000 bytes: byte 0 past its end changed during the call");
  w.workspace()[1000] = kWorkspaceCanary;
  w.workspace()[1000 + 24 + kWorkspaceGuardBytes - 1] = 1;  // the guard's last byte
  EXPECT_NE(w.Hit().find("byte 65559 past its end"), std::string::npos) << w.Hit();
  w.workspace()[1000 + 24 + kWorkspaceGuardBytes - 1] = kWorkspaceCanary;
  w.workspace()[-4] = 0;  // a float before the start
  EXPECT_NE(w.Hit().find("byte 4 before its start"), std::string::npos) << w.Hit();
}

}  // namespace
}  // namespace hone::sandbox
