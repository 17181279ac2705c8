#include "compat/compat_sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "core/fs.h"
#include "core/hash.h"
#include "core/interrupt_cleanup.h"

namespace hone {
namespace {

// The owner may do anything; others ('nobody') may pass through, not list.
void AllowPassThrough(const std::filesystem::path& dir, std::error_code& ec) {
  std::filesystem::permissions(dir,
                               std::filesystem::perms::owner_all |
                                   std::filesystem::perms::group_exec |
                                   std::filesystem::perms::others_exec,
                               ec);
}

}  // namespace

Status AddCompat(SandboxConfig& config, const CompatRuntime& runtime) {
  config.compat = true;
  // Python, the compilers load_inline runs and torch use absolute paths
  // into the scratch folder; as root the sandbox runs as 'nobody', who
  // cannot pass through root's private home where the cache usually is.
  if (geteuid() == 0) {
    HONE_ASSIGN_OR_RETURN(config.scratch_root, CompatScratchRoot());
  }
  config.extra_read_dirs = CompatReadDirs(runtime);
  config.extra_env = CompatEnvironment(runtime);
  config.python_library = runtime.libpython;
  config.python_runner = runtime.runner;
  config.limit_address_space = false;  // torch maps gigabytes it never touches
  // load_inline's compilers run under the sandbox's limits too, and nvcc
  // compiling torch's headers needs several gigabytes.
  config.memory_limit_bytes = std::max<size_t>(config.memory_limit_bytes, kCompatMemoryBytes);
  return Status::Ok();
}

Status AddCompatShim(SandboxConfig& config, const CompatRuntime& runtime,
                     const CompatShimOptions& shim) {
  HONE_RETURN_IF_ERROR(AddCompat(config, runtime));
  for (const auto& [key, library] : shim.prebuilt)
    config.extra_read_dirs.push_back(library.string());
  for (const auto& dir : shim.read_dirs) config.extra_read_dirs.push_back(dir);
  return Status::Ok();
}

namespace {

// The process's scratch root, removed with what is left in it when the
// process that made it ends normally (each sandbox's own folder is removed
// with the sandbox; without this the root itself stayed behind, one per
// process). A forked child that exits normally leaves it to its parent.
struct ScratchRoot {
  Result<std::filesystem::path> dir = Status::Internal("not made");
  pid_t owner = getpid();
  ~ScratchRoot() {
    std::error_code ec;
    if (dir.ok() && getpid() == owner) std::filesystem::remove_all(*dir, ec);
  }
};

}  // namespace

namespace {

// Others may search every folder from / down to `dir`.
bool PassableByOthers(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(dir, ec);
  if (ec) return false;
  std::filesystem::path at;
  for (const auto& part : abs) {
    at /= part;
    struct stat st;
    if (stat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & S_IXOTH)) return false;
  }
  return true;
}

}  // namespace

std::filesystem::path FirstPassableFolder(const std::vector<std::filesystem::path>& candidates) {
  for (const auto& c : candidates)
    if (PassableByOthers(c)) return c;
  return candidates.empty() ? std::filesystem::path() : candidates.front();
}

Result<std::filesystem::path> CompatScratchRoot() {
  static ScratchRoot root{[]() -> Result<std::filesystem::path> {
    std::error_code ec;
    const std::filesystem::path base = FirstPassableFolder(
        {std::filesystem::temp_directory_path(ec), "/tmp", "/var/tmp", "/dev/shm"});
    HONE_ASSIGN_OR_RETURN(std::filesystem::path dir, MakeTempDir(base, "hone-compat"));
    AllowPassThrough(dir, ec);
    if (ec) return Status::Io(dir.string() + ": " + ec.message());
    RemoveOnInterrupt(dir);
    return dir;
  }()};
  return root.dir;
}

namespace {

// `file` copied into `dir` (made, passable by others), readable by all;
// once per name (the callers' names are content-addressed).
Result<std::filesystem::path> ReadableCopy(const std::filesystem::path& file,
                                           const std::filesystem::path& dir) {
  std::filesystem::path copy = dir / file.filename();
  std::error_code ec;
  if (std::filesystem::is_regular_file(copy, ec)) return copy;
  std::filesystem::create_directories(dir, ec);
  AllowPassThrough(dir, ec);
  std::filesystem::path tmp = dir / (file.filename().string() + ".tmp");
  std::filesystem::copy_file(file, tmp, std::filesystem::copy_options::overwrite_existing, ec);
  if (!ec)
    std::filesystem::permissions(
        tmp,
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
            std::filesystem::perms::group_read | std::filesystem::perms::others_read,
        ec);
  if (!ec) std::filesystem::rename(tmp, copy, ec);
  if (ec) return Status::Io(copy.string() + ": " + ec.message());
  return copy;
}

}  // namespace

Result<std::filesystem::path> SandboxReadable(const std::filesystem::path& library) {
  if (geteuid() != 0) return library;
  HONE_ASSIGN_OR_RETURN(std::filesystem::path root, CompatScratchRoot());
  return ReadableCopy(library, root / "extensions");
}

Status AddProblemFolder(const Task& task, CompatShimOptions& options) {
  if (!task.data_beside || !task.pytorch) return Status::Ok();
  const std::filesystem::path& file = task.pytorch->file;
  if (geteuid() != 0) {
    options.read_dirs.push_back(file.parent_path().string());
    return Status::Ok();
  }
  HONE_ASSIGN_OR_RETURN(std::filesystem::path root, CompatScratchRoot());
  // The folder's name is its content's hash (format/flashinfer_codegen.h).
  std::filesystem::path dir = root / "problems" / file.parent_path().filename();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(file.parent_path(), ec))
    if (entry.is_regular_file(ec)) HONE_RETURN_IF_ERROR(ReadableCopy(entry.path(), dir).status());
  if (ec) return Status::Io(file.parent_path().string() + ": " + ec.message());
  options.read_dirs.push_back(dir.string());
  options.problem_path = dir / file.filename();
  return Status::Ok();
}

Status AddCandidateFile(const std::filesystem::path& candidate, CompatShimOptions& options) {
  const std::filesystem::path file = std::filesystem::absolute(candidate);
  if (geteuid() != 0) {
    options.read_dirs.push_back(file.string());
    return Status::Ok();
  }
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
  HONE_ASSIGN_OR_RETURN(std::filesystem::path root, CompatScratchRoot());
  HONE_ASSIGN_OR_RETURN(
      options.candidate_path,
      ReadableCopy(file, root / "candidates" / ContentHash({text}).substr(0, 16)));
  options.read_dirs.push_back(options.candidate_path.string());
  return Status::Ok();
}

}  // namespace hone
