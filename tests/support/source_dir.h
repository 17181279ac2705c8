// The source tree tests read their fixtures from: $HONE_SOURCE_DIR when the
// tests run from a copy (scripts/gpu-check on a GPU machine), else the
// checkout the test binary was built from (HONE_TEST_SOURCE_DIR, a compile
// definition of every test target).
#pragma once

#include <cstdlib>
#include <filesystem>

namespace hone::testing {

inline std::filesystem::path SourceDir() {
  const char* e = std::getenv("HONE_SOURCE_DIR");
  return e && *e ? std::filesystem::path(e) : std::filesystem::path(HONE_TEST_SOURCE_DIR);
}

}  // namespace hone::testing
