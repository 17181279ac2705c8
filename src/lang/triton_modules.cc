#include "lang/triton_modules.h"

#include <thread>

#include "core/fs.h"
#include "core/subprocess.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

// What one sandbox may leave for the builder: a request is a few hundred
// bytes, and a file defines a handful of kernels.
constexpr int kMaxRequests = 64;
constexpr uintmax_t kMaxRequestBytes = 64 << 10;

}  // namespace

TritonModules::TritonModules(const LoaderEnv& env)
    : env_(env),
      cache_(env.cache / "triton-modules" / "cache"),
      pending_(env.cache / "triton-modules" / "pending"),
      view_(env.readable.empty() ? cache_ : env.readable / "triton-modules"),
      kernels_(env.cache / "triton-kernels",
               env.readable.empty() ? fs::path() : env.readable / "triton-kernels") {
  std::error_code ec;
  fs::create_directories(cache_, ec);
  fs::create_directories(pending_, ec);
  StartBuilder();  // cuda_utils, and any request an earlier run left
}

void TritonModules::StartBuilder() {
  if (env_.python.empty() || building_->exchange(true)) return;
  std::vector<std::string> argv = {env_.python, (env_.python_dir / "hone_triton_build.py").string(),
                                   cache_.string(), pending_.string()};
  std::shared_ptr<std::atomic<bool>> building = building_;
  std::thread([argv, building] {
    CommandOptions o;
    o.timeout = std::chrono::minutes(2);
    (void)RunCommand(argv, o);  // what it could not build is compiled in the sandbox, as before
    building->store(false);
  }).detach();
}

void TritonModules::RefreshView() {
  if (view_ == cache_) return;
  std::error_code ec;
  fs::create_directories(view_, ec);
  MakeReadableByAll(view_, ec);
  for (const auto& entry : fs::directory_iterator(cache_, ec)) {
    if (!entry.is_directory()) continue;
    const fs::path dir = view_ / entry.path().filename();
    for (const auto& file : fs::directory_iterator(entry.path(), ec)) {
      const std::string name = file.path().filename().string();
      if (!file.is_regular_file() || name.find(".tmp") != std::string::npos) continue;
      const fs::path copy = dir / name;
      if (fs::exists(copy, ec)) continue;
      fs::create_directories(dir, ec);
      MakeReadableByAll(dir, ec);
      const fs::path tmp = dir / (name + ".copying");
      fs::copy_file(file.path(), tmp, fs::copy_options::overwrite_existing, ec);
      if (!ec) MakeReadableByAll(tmp, ec);
      if (!ec) fs::rename(tmp, copy, ec);
    }
  }
}

void TritonModules::Configure(std::string_view candidate_source, nlohmann::json& runner_config,
                              std::vector<std::string>& read_dirs) {
  RefreshView();
  runner_config["triton"] = {{"shared", view_.string()}, {"records", "triton-modules"}};
  read_dirs.push_back(view_.string());
  if (fs::path kernels = kernels_.Open(candidate_source); !kernels.empty()) {
    runner_config["triton"]["kernels"] = kernels.string();
    read_dirs.push_back(kernels.string());
  }
}

void TritonModules::Loaded(const fs::path& scratch) {
  kernels_.Keep(scratch / "triton");  // hone_compat.py: TRITON_CACHE_DIR
  std::error_code ec;
  int taken = 0;
  for (const auto& entry : fs::directory_iterator(scratch / "triton-modules", ec)) {
    const fs::path& p = entry.path();
    if (taken >= kMaxRequests) break;
    // A plain file only: a link could point the trusted side at any file.
    if (p.extension() != ".json" || !fs::is_regular_file(entry.symlink_status(ec)) ||
        entry.file_size(ec) > kMaxRequestBytes)
      continue;
    // The file's name is the sandbox's: the builder checks its content.
    fs::copy_file(p, pending_ / p.filename(), fs::copy_options::skip_existing, ec);
    ++taken;
  }
  if (taken > 0) StartBuilder();
}

}  // namespace hone
