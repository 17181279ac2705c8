#include "core/paths.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <vector>

#ifndef HONE_SOURCE_INCLUDE_DIR
#define HONE_SOURCE_INCLUDE_DIR ""
#endif
#ifndef HONE_SOURCE_PROMPTS_DIR
#define HONE_SOURCE_PROMPTS_DIR ""
#endif
#ifndef HONE_SOURCE_PYTHON_DIR
#define HONE_SOURCE_PYTHON_DIR ""
#endif

namespace hone {

namespace fs = std::filesystem;

namespace {

// One of hone's resource folders: the variable that overrides it, a file
// that must be in it, and where to look without the variable.
struct Resource {
  const char* variable;
  fs::path marker;  // relative to the folder
  std::vector<fs::path> candidates;
  const char* what;  // for messages
};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool Holds(const fs::path& dir, const fs::path& marker) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(dir / marker, ec);
}

// The variable's folder when it is set, else the first candidate holding
// the marker.
Result<fs::path> Find(const Resource& r) {
  if (std::string e = Env(r.variable); !e.empty()) {
    if (Holds(e, r.marker)) return fs::path(e);
    return Status::NotFound(std::string(r.variable) + "=" + e + ": no " + r.marker.string() +
                            " there");
  }
  std::string tried;
  for (const fs::path& dir : r.candidates) {
    if (Holds(dir, r.marker)) {
      std::error_code ec;
      fs::path canonical = fs::canonical(dir, ec);
      return ec ? dir : canonical;
    }
    if (!dir.empty()) tried += (tried.empty() ? "" : ", ") + dir.lexically_normal().string();
  }
  return Status::NotFound("cannot find " + std::string(r.what) + " (" + r.marker.string() +
                          "; looked in " + tried + "; set " + r.variable + ")");
}

// ../share/hone/NAME next to the running binary.
fs::path InstalledShare(const char* name) {
  return ExecutableDir() / ".." / "share" / "hone" / name;
}

}  // namespace

fs::path ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

Result<fs::path> FindIncludeDir() {
  return Find({"HONE_INCLUDE_DIR",
               fs::path("hone") / "kernel.h",
               {ExecutableDir() / ".." / "include", ExecutableDir() / "include",
                fs::path(HONE_SOURCE_INCLUDE_DIR)},
               "the candidate contract header"});
}

Result<fs::path> FindPromptsDir() {
  return Find({"HONE_PROMPTS",
               "system.txt",
               {InstalledShare("prompts"), fs::path(HONE_SOURCE_PROMPTS_DIR)},
               "the prompt templates"});
}

Result<fs::path> FindPythonDir() {
  return Find({"HONE_PYTHON_DIR",
               "hone_oracle.py",
               {InstalledShare("python"), fs::path(HONE_SOURCE_PYTHON_DIR)},
               "hone's Python files"});
}

Result<fs::path> FindSandboxExecutable(const std::string& name) {
  // The program's name in capitals, '-' as '_': hone-sandbox-cuda, HONE_SANDBOX_CUDA.
  std::string var = name;
  for (char& c : var)
    c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (std::string e = Env(var.c_str()); !e.empty()) {
    if (access(e.c_str(), X_OK) != 0)
      return Status::NotFound(var + "=" + e + ": not an executable file");
    return fs::path(e);
  }
  fs::path p = ExecutableDir() / name;
  if (access(p.c_str(), X_OK) == 0) return p;
  return Status::NotFound("cannot find " + name + " next to " + ExecutableDir().string() +
                          " (set " + var + ")");
}

}  // namespace hone
