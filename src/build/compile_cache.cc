#include "build/compile_cache.h"

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/json_text.h"

namespace hone {

std::filesystem::path CompileCache::LibraryPath(const std::string& key) const {
  return dir_ / key.substr(0, 2) / (key + ".so");
}

std::filesystem::path CompileCache::MetaPath(const std::string& key) const {
  return dir_ / key.substr(0, 2) / (key + ".json");
}

std::optional<BuildResult> CompileCache::Lookup(const std::string& key) const {
  auto text = ReadFile(MetaPath(key));
  if (!text.ok()) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  BuildResult r;
  r.key = key;
  r.ok = j.value("ok", false);
  r.log = j.value("log", "");
  r.full_log = j.value("full_log", "");
  r.command = j.value("command", "");
  r.compile_seconds = j.value("compile_seconds", 0.0);
  r.kernels = j.value("kernels", std::vector<std::string>{});
  r.resources = j.value("resources", "");
  r.cached = true;
  if (r.ok) {
    r.library = LibraryPath(key);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(r.library, ec)) return std::nullopt;
  }
  return r;
}

Status CompileCache::Store(const BuildResult& r) const {
  nlohmann::json j = {{"ok", r.ok},
                      {"log", r.log},
                      {"full_log", r.full_log},
                      {"command", r.command},
                      {"compile_seconds", r.compile_seconds},
                      {"kernels", r.kernels},
                      {"resources", r.resources}};
  return WriteFileAtomic(MetaPath(r.key), JsonText(j, 1));
}

}  // namespace hone
