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

Result<fs::path> FindPromptsDir() {
  if (const char* e = std::getenv("HONE_PROMPTS"); e && *e) {
    if (!fs::is_directory(e))
      return Status::NotFound(std::string("HONE_PROMPTS=") + e + ": not a directory");
    return fs::path(e);
  }
  for (fs::path candidate :
       {fs::path(HONE_SOURCE_PROMPTS_DIR), ExecutableDir() / ".." / "share" / "hone" / "prompts"}) {
    if (fs::is_regular_file(candidate / "system.txt")) return fs::canonical(candidate);
  }
  return Status::NotFound(
      "cannot find the prompt templates (prompts/system.txt; set HONE_PROMPTS)");
}

Result<fs::path> FindSandboxExecutable(const std::string& name) {
  const char* var = name == "hone-sandbox-cuda" ? "HONE_SANDBOX_CUDA" : "HONE_SANDBOX";
  if (const char* e = std::getenv(var); e && *e) {
    if (access(e, X_OK) != 0)
      return Status::NotFound(std::string(var) + "=" + e + ": not an executable file");
    return fs::path(e);
  }
  fs::path p = ExecutableDir() / name;
  if (access(p.c_str(), X_OK) == 0) return p;
  return Status::NotFound("cannot find " + name + " next to " + ExecutableDir().string() +
                          " (set " + var + ")");
}

}  // namespace hone
