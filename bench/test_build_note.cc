// Linked into every benchmark of a test build (HONE_TEST_BUILD, see the top
// CMakeLists.txt): such a build compiles hone's trusted side at -O1 to build
// faster, so its figures are not the ones docs/PERFORMANCE.md records. Says
// so on stderr before main, so that no one copies them by mistake.
#include <cstdio>

namespace {

struct TestBuildNote {
  TestBuildNote() {
    std::fputs(
        "note: a test build (hone's trusted side at -O1, -DHONE_TEST_BUILD=ON): rebuild with "
        "scripts/build for figures to record\n",
        stderr);
  }
} const note;

}  // namespace
