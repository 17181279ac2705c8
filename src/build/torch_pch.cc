#include "build/torch_pch.h"

#include <algorithm>
#include <utility>

#include "build/compiler_builder.h"
#include "core/detached_process.h"
#include "core/file_lock.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/subprocess.h"

namespace hone {

namespace {

namespace fs = std::filesystem;

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Options whose next argument belongs to them and leaves with them.
bool DropsNext(const std::string& a) { return a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ"; }

bool DropsAlone(const std::string& a) {
  return a == "-c" || a == "-MMD" || a == "-MD" || StartsWith(a, "-DTORCH_EXTENSION_NAME=");
}

// What the detached process runs: the header's compile at the lowest
// priority under the build's time limit, then the rename into place; a
// failure other than the time limit is remembered in <hash>.failed.
// Arguments: the folder to rename into, the private folder, the failure
// file, the limit in seconds, then the compile.
constexpr char kBackgroundBuild[] = R"(done=$1 tmp=$2 failed=$3 limit=$4
shift 4
nice -n 19 timeout -k 10 "$limit" "$@" > "$tmp/log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
  mv -T "$tmp" "$done" 2> /dev/null && exit 0
elif [ $rc -ne 124 ] && [ $rc -ne 137 ]; then
  { echo "$*"; cat "$tmp/log"; } > "$failed.part" && mv "$failed.part" "$failed"
fi
rm -rf "$tmp"
)";

}  // namespace

TorchPch::TorchPch(fs::path dir, std::chrono::seconds timeout, bool background, size_t keep)
    : dir_(std::move(dir)), timeout_(timeout), background_(background), keep_(keep) {}

std::vector<std::string> TorchPch::HeaderFlags(const std::vector<std::string>& argv,
                                               const fs::path& source) {
  std::vector<std::string> flags;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (DropsNext(argv[i])) {
      ++i;
    } else if (!DropsAlone(argv[i]) && argv[i] != source.string()) {
      flags.push_back(argv[i]);
    }
  }
  return flags;
}

fs::path TorchPch::TorchIncludeDir(const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string dir;
    if ((argv[i] == "-isystem" || argv[i] == "-I") && i + 1 < argv.size()) {
      dir = argv[i + 1];
    } else if (StartsWith(argv[i], "-isystem")) {
      dir = argv[i].substr(8);
    } else if (StartsWith(argv[i], "-I")) {
      dir = argv[i].substr(2);
    }
    std::error_code ec;
    if (!dir.empty() && fs::is_regular_file(fs::path(dir) / "torch" / "extension.h", ec))
      return dir;
  }
  return {};
}

bool TorchPch::IsGcc(const std::string& compiler) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = is_gcc_.find(compiler); it != is_gcc_.end()) return it->second;
  }
  // Ask the compiler what it is: `c++ --version` does not say "gcc" on
  // Debian, and clang defines __GNUC__ too.
  CommandOptions o;
  o.timeout = std::chrono::seconds(60);
  auto run = RunCommand({compiler, "-dM", "-E", "-x", "c++", "/dev/null"}, o);
  bool gcc = run.ok() && run->succeeded() &&
             run->output.find("#define __GNUC__ ") != std::string::npos &&
             run->output.find("__clang__") == std::string::npos &&
             run->output.find("__INTEL") == std::string::npos;
  std::lock_guard<std::mutex> lock(mu_);
  is_gcc_[compiler] = gcc;
  return gcc;
}

std::shared_ptr<std::mutex> TorchPch::LockFor(const std::string& hash) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& m = building_[hash];
  if (!m) m = std::make_shared<std::mutex>();
  return m;
}

std::vector<std::string> TorchPch::Apply(const std::vector<std::string>& argv,
                                         const fs::path& source, std::string* note) {
  std::string ignored;
  if (!note) note = &ignored;
  if (argv.empty() || !IsGcc(argv[0])) {
    *note = "no precompiled header: the compiler is not gcc";
    return argv;
  }
  fs::path torch_include = TorchIncludeDir(argv);
  if (torch_include.empty()) {
    *note = "no precompiled header: torch/extension.h is not on the include path";
    return argv;
  }
  fs::path pch = Ensure(argv[0], HeaderFlags(argv, source), torch_include, note);
  if (pch.empty()) return argv;
  std::vector<std::string> out = {argv[0], "-I" + pch.string(), "-Winvalid-pch"};
  out.insert(out.end(), argv.begin() + 1, argv.end());
  return out;
}

fs::path TorchPch::Ensure(const std::string& compiler, const std::vector<std::string>& flags,
                          const fs::path& torch_include, std::string* note) {
  fs::path header = torch_include / "torch" / "extension.h";
  auto text = ReadFile(header);
  if (!text.ok()) {
    *note = "no precompiled header: " + text.status().message();
    return {};
  }
  auto identity = ProgramIdentity(compiler);
  std::string joined;
  for (const auto& f : flags) joined += f + '\n';
  std::string hash = ContentHash({"torch-pch-v1", identity.ok() ? *identity : compiler, joined,
                                  torch_include.string(), *text});
  fs::path done = dir_ / hash;
  fs::path failed = dir_ / (hash + ".failed");
  std::error_code ec;
  auto ready = [&] { return fs::is_regular_file(done / "torch" / "extension.h.gch", ec); };
  if (ready()) {
    fs::last_write_time(done, fs::file_time_type::clock::now(), ec);  // used: keep it
    *note = "precompiled header " + done.string();
    return done;
  }
  if (background_) return Want({hash, compiler, flags, header}, note);
  std::shared_ptr<std::mutex> lock = LockFor(hash);
  std::lock_guard<std::mutex> guard(*lock);
  // Other processes (a bench's lanes, workers, parallel evaluations) wait
  // for one build of the header rather than each building its own 600 MB at
  // once; past the build's own timeout they build without the lock.
  fs::create_directories(dir_, ec);
  FileLock others(dir_ / (hash + ".lock"), timeout_);
  if (ready()) {
    *note = "precompiled header " + done.string();
    return done;
  }
  if (fs::exists(failed, ec)) {
    *note = "no precompiled header: it failed to build before (" + failed.string() + ")";
    return {};
  }
  Evict();
  return BuildHeader({hash, compiler, flags, header}, note);
}

fs::path TorchPch::Want(Header h, std::string* note) {
  const fs::path failed = dir_ / (h.hash + ".failed");
  std::error_code ec;
  if (fs::exists(failed, ec)) {
    *note = "no precompiled header: it failed to build before (" + failed.string() + ")";
    return {};
  }
  fs::create_directories(dir_, ec);
  if (!FileLock(dir_ / (h.hash + ".lock"), std::chrono::milliseconds(0)).held()) {
    *note = "no precompiled header: another process is building it (this compile goes without it)";
    std::lock_guard<std::mutex> lock(mu_);
    started_.push_back(h.hash);  // WaitForBackgroundBuilds waits for that build too
    return {};
  }
  *note =
      "no precompiled header yet: it is built in the background once this evaluation ends (this "
      "compile goes without it, as torch's own build would)";
  std::lock_guard<std::mutex> lock(mu_);
  for (const Header& w : wanted_)
    if (w.hash == h.hash) return {};
  wanted_.push_back(std::move(h));
  return {};
}

void TorchPch::StartWantedBuilds() {
  std::vector<Header> wanted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wanted.swap(wanted_);
  }
  for (const Header& h : wanted) StartInBackground(h);
}

void TorchPch::StartInBackground(const Header& h) {
  const fs::path done = dir_ / h.hash, failed = dir_ / (h.hash + ".failed");
  std::error_code ec;
  fs::create_directories(dir_, ec);
  // Taken without waiting: held, another process is building the header.
  FileLock others(dir_ / (h.hash + ".lock"), std::chrono::milliseconds(0));
  if (!others.held() || fs::is_regular_file(done / "torch" / "extension.h.gch", ec) ||
      fs::exists(failed, ec))
    return;
  Evict();
  auto tmp = MakeTempDir(dir_, "tmp");
  if (!tmp.ok()) return;
  Result<pid_t> started = Status::Internal("not started");
  if (auto compile = HeaderCompile(h, *tmp); compile.ok()) {
    std::vector<std::string> argv = {
        "/bin/sh",     "-c",          kBackgroundBuild, "hone-pch",
        done.string(), tmp->string(), failed.string(),  std::to_string(timeout_.count())};
    argv.insert(argv.end(), compile->begin(), compile->end());
    // The detached process takes the lock with it: held until its build ends.
    started = SpawnDetached(argv, others.descriptor());
  }
  if (!started.ok()) {
    fs::remove_all(*tmp, ec);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  started_.push_back(h.hash);
}

void TorchPch::WaitForBackgroundBuilds(std::chrono::seconds limit) {
  std::vector<std::string> hashes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hashes = started_;
  }
  const auto until = std::chrono::steady_clock::now() + limit;
  for (const std::string& hash : hashes) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    FileLock wait(dir_ / (hash + ".lock"), std::max(left, std::chrono::milliseconds(0)));
  }
}

void TorchPch::Evict() {
  std::vector<std::pair<fs::file_time_type, fs::path>> headers;
  // A private folder older than any build may run was left by a build that
  // was killed (a detached one cleans up after itself otherwise).
  const auto stale = fs::file_time_type::clock::now() - timeout_ - std::chrono::minutes(1);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    std::string name = e.path().filename().string();
    if (!e.is_directory(ec)) continue;
    std::error_code time_ec;
    const auto written = fs::last_write_time(e.path(), time_ec);
    if (name.size() == 32)
      headers.emplace_back(written, e.path());
    else if (name.rfind("tmp", 0) == 0 && !time_ec && written < stale)
      fs::remove_all(e.path(), ec);
  }
  if (headers.size() < keep_) return;
  std::sort(headers.begin(), headers.end());
  for (size_t i = 0; i + keep_ <= headers.size(); ++i) fs::remove_all(headers[i].second, ec);
}

Result<std::vector<std::string>> TorchPch::HeaderCompile(const Header& h, const fs::path& tmp) {
  const fs::path copy = tmp / "torch" / "extension.h";
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(h.header));
  HONE_RETURN_IF_ERROR(WriteFileAtomic(copy, text));
  std::vector<std::string> argv = {h.compiler};
  argv.insert(argv.end(), h.flags.begin(), h.flags.end());
  argv.insert(argv.end(), {"-x", "c++-header", copy.string(), "-o", copy.string() + ".gch"});
  return argv;
}

fs::path TorchPch::BuildHeader(const Header& h, std::string* note) {
  fs::path done = dir_ / h.hash;
  auto tmp = MakeTempDir(dir_, "tmp");
  if (!tmp.ok()) {
    *note = "no precompiled header: " + tmp.status().message();
    return {};
  }
  auto cleanup = [&] {
    std::error_code ec;
    fs::remove_all(*tmp, ec);
  };
  auto argv = HeaderCompile(h, *tmp);
  if (!argv.ok()) {
    cleanup();
    *note = "no precompiled header: " + argv.status().message();
    return {};
  }
  CommandOptions o;
  o.timeout = timeout_;
  auto run = RunCommand(*argv, o);
  if (!run.ok() || !run->succeeded()) {
    std::string why = run.ok() ? run->output : run.status().message();
    cleanup();
    // Remembered, so that every later build does not pay for a failing try.
    (void)WriteFileAtomic(dir_ / (h.hash + ".failed"), QuoteCommand(*argv) + "\n" + why);
    *note = "no precompiled header: building it failed (" + QuoteCommand(*argv) + ")";
    return {};
  }
  std::error_code ec;
  fs::rename(*tmp, done, ec);
  if (ec) cleanup();  // another process renamed its own copy first: use that one
  *note = "precompiled header " + done.string() + " (built in " +
          std::to_string(static_cast<int>(run->seconds)) + " s)";
  return fs::is_regular_file(done / "torch" / "extension.h.gch", ec) ? done : fs::path();
}

}  // namespace hone
