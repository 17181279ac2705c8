// Where a compat sandbox's scratch root may go when hone runs as root and
// the sandbox as 'nobody' (compat/compat_sandbox.h): only under folders
// that others may pass through, all the way from /.
#include "compat/compat_sandbox.h"

#include <gtest/gtest.h>

#include "core/fs.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

TEST(CompatScratchRootTest, APrivateFolderOnTheWayIsPassedOver) {
  auto parent = MakeTempDir(fs::temp_directory_path(), "hone-passable-test");
  ASSERT_TRUE(parent.ok()) << parent.status().message();
  if (FirstPassableFolder({fs::temp_directory_path(), "/"}) == "/") {
    fs::remove_all(*parent);
    GTEST_SKIP() << fs::temp_directory_path() << " itself is private here";
  }
  fs::permissions(*parent, fs::perms::owner_all | fs::perms::others_exec);
  const fs::path open = *parent / "open", closed = *parent / "closed";
  fs::create_directories(open / "inside");
  fs::create_directories(closed / "inside");
  fs::permissions(open, fs::perms::owner_all | fs::perms::others_exec);
  fs::permissions(open / "inside", fs::perms::owner_all | fs::perms::others_exec);
  fs::permissions(closed, fs::perms::owner_all);  // mkdtemp's 0700: a private TMPDIR
  fs::permissions(closed / "inside", fs::perms::owner_all | fs::perms::others_exec);
  EXPECT_EQ(FirstPassableFolder({closed, open}), open);
  // A passable folder under a private one is no way through.
  EXPECT_EQ(FirstPassableFolder({closed / "inside", open / "inside"}), open / "inside");
  EXPECT_EQ(FirstPassableFolder({open, closed}), open);
  // None passable: the first, whose failure then says where.
  EXPECT_EQ(FirstPassableFolder({closed, closed / "inside"}), closed);
  EXPECT_EQ(FirstPassableFolder({*parent / "missing", open}), open);
  fs::remove_all(*parent);
}

}  // namespace
}  // namespace hone
