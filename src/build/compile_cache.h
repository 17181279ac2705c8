// The content-addressed compile cache under $HONE_CACHE/builds.
//
// An entry is <key>.so (when the build succeeded) and <key>.json with the
// build log and timings; both are written by rename, so concurrent hone
// processes never see half an entry. Failed builds are cached too: the same
// broken source is never compiled twice. Thread-safe.
#pragma once

#include <filesystem>
#include <optional>

#include "build/builder.h"

namespace hone {

class CompileCache {
 public:
  explicit CompileCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  std::filesystem::path LibraryPath(const std::string& key) const;
  std::optional<BuildResult> Lookup(const std::string& key) const;
  Status Store(const BuildResult& result) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path MetaPath(const std::string& key) const;
  std::filesystem::path dir_;
};

}  // namespace hone
