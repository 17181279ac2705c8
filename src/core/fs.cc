#include "core/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace hone {

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path.string() + ": cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::Io(path.string() + ": read failed");
  return ss.str();
}

Status WriteFileAtomic(const fs::path& path, std::string_view content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  // Unique per call: two threads of one process (a build pool warming the
  // cache and an evaluation building the same source) may write one path at
  // once; each renames its own file, and the last rename wins whole. Two
  // containers sharing a cache folder may hold the same pid: a random part
  // per process keeps theirs apart too.
  static std::atomic<uint64_t> counter{0};
  static const uint64_t process_key =
      (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(process_key % 1000000007) + "." +
         std::to_string(++counter);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Io(tmp.string() + ": cannot open for writing");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) return Status::Io(tmp.string() + ": write failed");
  }
  fs::rename(tmp, path, ec);
  if (ec) return Status::Io(path.string() + ": rename failed: " + ec.message());
  return Status::Ok();
}

Result<fs::path> CacheDir() {
  fs::path dir;
  if (const char* c = std::getenv("HONE_CACHE"); c && *c) {
    dir = c;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = fs::path(x) / "hone";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = fs::path(h) / ".cache" / "hone";
  } else {
    dir = fs::temp_directory_path() / "hone-cache";
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::Io(dir.string() + ": cannot create cache directory: " + ec.message());
  // Absolute, so paths under it stay valid in a sandbox that changed directory.
  return fs::absolute(dir, ec).lexically_normal();
}

Result<fs::path> MakeTempDir(const fs::path& base, const std::string& prefix) {
  std::error_code ec;
  fs::create_directories(base, ec);
  std::string templ = (base / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(templ.data())) return Status::Io(templ + ": mkdtemp failed");
  return fs::path(templ);
}

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = i2;
      j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::string AbsolutePath(const fs::path& path) {
  return path.empty() ? std::string() : fs::absolute(path).lexically_normal().string();
}

void MakeReadableByAll(const fs::path& p, std::error_code& ec) {
  using P = fs::perms;
  const bool dir = fs::is_directory(fs::symlink_status(p, ec));
  if (ec) return;
  fs::permissions(
      p,
      dir ? P::owner_all | P::group_read | P::group_exec | P::others_read | P::others_exec
          : P::owner_read | P::owner_write | P::group_read | P::others_read,
      ec);
}

bool OthersCanReach(const fs::path& dir) {
  std::error_code ec;
  if (!dir.is_absolute() || !fs::is_directory(dir, ec)) return false;
  using fs::perms;
  for (fs::path p = dir;; p = p.parent_path()) {
    perms need = p == dir ? perms::others_read | perms::others_exec : perms::others_exec;
    perms have = fs::status(p, ec).permissions();
    if (ec || (have & need) != need) return false;
    if (p == p.root_path()) return true;
  }
}

fs::path PythonBytecodeDir() {
  auto cache = CacheDir();
  if (!cache.ok()) return {};
  fs::path in_cache = *cache / "python-bytecode";
  if (geteuid() != 0 || OthersCanReach(*cache)) return in_cache;
  // Root-owned, 0755, in a sticky folder: another user can neither have
  // made it (the owner is checked) nor change it.
  fs::path shared = "/var/tmp/hone-python-bytecode-0";
  mkdir(shared.c_str(), 0755);
  struct stat st {};
  if (lstat(shared.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 || !OthersCanReach(shared))
    return in_cache;
  return shared;
}

}  // namespace hone
