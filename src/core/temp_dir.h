// A directory owned for the length of a scope: made by MakeTempDir
// (core/fs.h), removed whole when its owner goes away. A failure to remove
// is ignored: it is scratch space under the cache. Not copyable.
#pragma once

#include <filesystem>
#include <system_error>

namespace hone {

class TempDirOwner {
 public:
  explicit TempDirOwner(std::filesystem::path dir) : dir_(std::move(dir)) {}
  ~TempDirOwner() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDirOwner(const TempDirOwner&) = delete;
  TempDirOwner& operator=(const TempDirOwner&) = delete;
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace hone
