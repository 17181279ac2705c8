// Ctrl-C in a command with a handler of its own (`hone bench`'s hint,
// cli/interrupt_hint.h) still runs hone's interrupt cleanup
// (core/interrupt_cleanup.h) before the process ends: the hint is said, the
// registered temporary files are removed, and the process ends as SIGINT
// would.
#include "cli/interrupt_hint.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/fs.h"
#include "core/interrupt_cleanup.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// The folder the test and its death-test child share: made once, its path
// passed to the child (which runs this test again) in the environment.
fs::path SharedDir() {
  constexpr char kEnv[] = "HONE_INTERRUPT_HINT_TEST_DIR";
  if (const char* dir = std::getenv(kEnv); dir && *dir) return dir;
  auto made = MakeTempDir(fs::temp_directory_path(), "hone-interrupt-hint-test");
  EXPECT_TRUE(made.ok()) << made.status().message();
  setenv(kEnv, made->c_str(), 1);
  return *made;
}

TEST(InterruptHintTest, CtrlCSaysTheHintRemovesTemporaryFilesAndEndsAsSigint) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path dir = SharedDir();
  const fs::path scratch = dir / "hone-oracle-scratch";
  fs::create_directories(scratch);
  std::ofstream(scratch / "file") << "left behind?";
  EXPECT_EXIT(
      {
        RemoveOnInterrupt(scratch);
        cli::SayOnInterrupt("hone: interrupted; continue with: hone bench --resume 7");
        raise(SIGINT);
        // The cleanup's thread ends the process; this thread waits for it.
        for (int i = 0; i < 100; ++i) usleep(100 * 1000);
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "continue with: hone bench --resume 7");
  EXPECT_FALSE(fs::exists(scratch)) << scratch << " left behind";
  unsetenv("HONE_INTERRUPT_HINT_TEST_DIR");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace hone
