#include "lang/triton_kernel_store.h"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <random>
#include <regex>
#include <vector>

#include "core/fs.h"
#include "core/hash.h"

namespace hone {
namespace {

// Triton names a kernel's folder by the base32 of a SHA-256 (52 letters).
bool IsTritonKey(const std::string& name) {
  static const std::regex key("[A-Z2-7]{16,64}");
  return std::regex_match(name, key);
}

// What Triton writes for a kernel: its metadata and group (JSON), the
// cubin and the forms on the way there. Never a shared object (a launcher,
// cuda_utils: python/hone_triton_build.py's) nor anything else.
bool IsKernelArtefact(const std::string& name) {
  static const std::regex artefact(
      "(__grp__)?[A-Za-z_][A-Za-z0-9_]{0,200}\\.(json|cubin|ptx|ttir|ttgir|llir|source)");
  return std::regex_match(name, artefact);
}

struct KernelFolder {
  std::vector<fs::path> files;
  uintmax_t bytes = 0;
};

// The kernel folder `dir` holds, when it is one whole kernel as Triton
// left it: plain files only, its artefacts, a group file among them.
std::optional<KernelFolder> ReadKernelFolder(const fs::path& dir) {
  KernelFolder k;
  bool grouped = false;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    const std::string name = f.path().filename().string();
    if (f.is_directory(ec) && name.rfind("tmp.", 0) == 0) continue;  // Triton's own, mid-write
    if (f.symlink_status(ec).type() != fs::file_type::regular || !IsKernelArtefact(name))
      return std::nullopt;
    k.bytes += f.file_size(ec);
    grouped |= name.rfind("__grp__", 0) == 0;
    k.files.push_back(f.path());
  }
  if (ec || !grouped) return std::nullopt;
  return k;
}

uintmax_t FolderBytes(const fs::path& dir) {
  uintmax_t n = 0;
  std::error_code ec;
  for (const auto& f : fs::recursive_directory_iterator(dir, ec))
    if (f.is_regular_file(ec)) n += f.file_size(ec);
  return n;
}

// `files` copied into `to` (made whole: a sibling filled, then renamed),
// readable by all.
bool CopyWhole(const std::vector<fs::path>& files, const fs::path& to) {
  std::error_code ec;
  if (fs::exists(to, ec)) return false;
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const fs::path tmp =
      to.parent_path() / ("." + to.filename().string() + ".tmp." + std::to_string(getpid()) + "." +
                          std::to_string(rng() % 1000000));
  fs::create_directories(tmp, ec);
  MakeReadableByAll(tmp, ec);
  for (const auto& f : files) {
    if (ec) break;
    fs::copy_file(f, tmp / f.filename(), ec);
    if (!ec) MakeReadableByAll(tmp / f.filename(), ec);
  }
  if (!ec) fs::rename(tmp, to, ec);  // a folder another process just placed: ours goes
  if (ec) fs::remove_all(tmp, ec);
  return !ec;
}

}  // namespace

TritonKernelStore::TritonKernelStore(fs::path root, fs::path view)
    : root_(std::move(root)), view_(std::move(view)) {
  Trim();
}

fs::path TritonKernelStore::Open(std::string_view candidate_source) {
  const std::string name = ContentHash({"triton-kernels", candidate_source});
  entry_ = root_ / name;
  std::error_code ec;
  fs::create_directories(entry_, ec);
  MakeReadableByAll(root_, ec);
  MakeReadableByAll(entry_, ec);
  if (ec) {
    entry_ = seen_ = fs::path();
    return seen_;
  }
  fs::last_write_time(entry_, fs::file_time_type::clock::now(), ec);  // recently used
  seen_ = entry_;
  if (view_.empty()) return seen_;
  // Sandboxes read a copy of the entry beside their scratch folders.
  seen_ = view_ / name;
  fs::create_directories(seen_, ec);
  MakeReadableByAll(view_, ec);
  MakeReadableByAll(seen_, ec);
  for (const auto& k : fs::directory_iterator(entry_, ec))
    if (auto folder = ReadKernelFolder(k.path()))
      CopyWhole(folder->files, seen_ / k.path().filename());
  if (ec) seen_ = fs::path();
  return seen_;
}

int TritonKernelStore::Keep(const fs::path& private_cache) {
  std::error_code ec;
  // The sandbox made the folder: a link could point this copy anywhere.
  if (entry_.empty() || fs::symlink_status(private_cache, ec).type() != fs::file_type::directory)
    return 0;
  uintmax_t bytes = FolderBytes(entry_);
  int kept = 0;
  for (const auto& k : fs::directory_iterator(private_cache, ec)) {
    const std::string key = k.path().filename().string();
    if (!IsTritonKey(key) || k.symlink_status(ec).type() != fs::file_type::directory ||
        fs::exists(entry_ / key, ec))
      continue;
    auto folder = ReadKernelFolder(k.path());
    if (!folder || bytes + folder->bytes > kMaxEntryBytes) continue;
    if (!CopyWhole(folder->files, entry_ / key)) continue;
    bytes += folder->bytes;
    ++kept;
    // Later sandboxes of this evaluation (timing in several processes) too.
    if (seen_ != entry_) CopyWhole(folder->files, seen_ / key);
  }
  kept_since_trim_ += kept;
  if (kept_since_trim_ >= 64) {
    kept_since_trim_ = 0;
    Trim();
  }
  return kept;
}

void TritonKernelStore::Trim(uintmax_t max_bytes) {
  struct Entry {
    fs::path dir;
    fs::file_time_type used;
    uintmax_t bytes;
  };
  std::vector<Entry> entries;
  uintmax_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root_, ec)) {
    if (!e.is_directory(ec)) continue;
    entries.push_back({e.path(), fs::last_write_time(e.path(), ec), FolderBytes(e.path())});
    total += entries.back().bytes;
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    if (e.dir == entry_) continue;
    fs::remove_all(e.dir, ec);
    total -= e.bytes;
  }
}

}  // namespace hone
