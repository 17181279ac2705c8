#include "tools/cuda_tools.h"

#include <cstdlib>

#include "build/compiler_builder.h"
#include "core/fs.h"

namespace hone {

std::optional<std::filesystem::path> FindCudaTool(const std::string& name) {
  if (auto on_path = FindProgram(name); on_path.ok()) return *on_path;
  std::vector<std::filesystem::path> dirs;
  if (const char* home = std::getenv("CUDA_HOME"))
    dirs.push_back(std::filesystem::path(home) / "bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const auto& d : dirs) {
    std::error_code ec;
    auto p = d / name;
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

std::vector<std::string> CleanToolEnvironment(const std::filesystem::path& scratch) {
  std::vector<std::string> argv = {"env", "-i", "HOME=" + scratch.string(),
                                   "TMPDIR=" + scratch.string()};
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name)) argv.push_back(std::string(name) + "=" + v);
  return argv;
}

std::chrono::milliseconds ToolTimeout(const char* name, std::chrono::milliseconds fallback) {
  if (const char* v = std::getenv(name)) {
    double s = std::atof(v);
    if (s > 0) return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  }
  return fallback;
}

ToolScratch::~ToolScratch() {
  if (dir_.empty()) return;
  std::error_code e;
  std::filesystem::remove_all(dir_, e);
}

bool ToolScratch::Create(const std::string& prefix, std::string* error, bool sandbox_writes) {
  std::error_code ec;
  auto dir = MakeTempDir(std::filesystem::temp_directory_path(ec), prefix);
  if (!dir.ok()) {
    *error = dir.status().message();
    return false;
  }
  dir_ = *dir;
  std::filesystem::permissions(
      dir_, sandbox_writes ? std::filesystem::perms::all : std::filesystem::perms::owner_all, ec);
  return true;
}

}  // namespace hone
