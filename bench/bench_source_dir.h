// The checkout a benchmark reads tasks from: HONE_SOURCE_DIR where the binary
// runs elsewhere (the GPU machine), else the source tree it was built from
// (HONE_BENCH_SOURCE_DIR, set by bench/CMakeLists.txt).
#pragma once

#include <cstdlib>
#include <filesystem>

inline std::filesystem::path BenchSourceDir() {
  const char* env = std::getenv("HONE_SOURCE_DIR");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path(HONE_BENCH_SOURCE_DIR);
}
