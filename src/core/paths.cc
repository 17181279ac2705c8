#include "core/paths.h"

#include <unistd.h>

#include <cstdlib>

namespace hone {

namespace fs = std::filesystem;

fs::path ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

Result<fs::path> FindIncludeDir() {
  if (const char* e = std::getenv("HONE_INCLUDE_DIR"); e && *e) return fs::path(e);
  for (fs::path candidate : {ExecutableDir() / ".." / "include", ExecutableDir() / "include",
                             fs::path(HONE_SOURCE_INCLUDE_DIR)}) {
    if (fs::is_regular_file(candidate / "hone" / "kernel.h")) return fs::canonical(candidate);
  }
  return Status::NotFound("cannot find hone/kernel.h (set HONE_INCLUDE_DIR)");
}

Result<fs::path> FindSandboxExecutable() {
  if (const char* e = std::getenv("HONE_SANDBOX"); e && *e) {
    if (access(e, X_OK) != 0)
      return Status::NotFound(std::string("HONE_SANDBOX=") + e + ": not an executable file");
    return fs::path(e);
  }
  fs::path p = ExecutableDir() / "hone-sandbox";
  if (access(p.c_str(), X_OK) == 0) return p;
  return Status::NotFound("cannot find hone-sandbox next to " + ExecutableDir().string() +
                          " (set HONE_SANDBOX)");
}

}  // namespace hone
