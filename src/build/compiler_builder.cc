#include "build/compiler_builder.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "build/error_trim.h"
#include "build/ptxas_report.h"
#include "core/backend_names.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/paths.h"
#include "core/subprocess.h"

namespace hone {

Result<std::filesystem::path> FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return std::filesystem::path(name);
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::filesystem::path p = std::filesystem::path(dir) / name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return Status::NotFound("compiler '" + name + "' not found on PATH");
}

Result<std::string> ProgramIdentity(const std::string& name) {
  HONE_ASSIGN_OR_RETURN(std::filesystem::path p, FindProgram(name));
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(p, ec);
  if (ec) return Status::NotFound(p.string() + ": " + ec.message());
  auto size = std::filesystem::file_size(real, ec);
  auto mtime = std::filesystem::last_write_time(real, ec).time_since_epoch().count();
  return real.string() + ":" + std::to_string(size) + ":" + std::to_string(mtime);
}

CompilerOptions CpuCompilerOptions() {
  CompilerOptions o;
  o.backend = kHostBackend;
  o.compiler = "g++";
  o.flags = {"-std=c++20", "-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-Wl,-z,defs"};
  return o;
}

namespace {

// Where a cached build log names its source (CompilerBuilder::Build).
constexpr const char* kSourcePlaceholder = "<source>";

BuildResult NamedAfter(BuildResult r, const std::string& display) {
  ReplaceAll(r.log, kSourcePlaceholder, display);
  return r;
}

}  // namespace

Result<std::unique_ptr<CompilerBuilder>> CompilerBuilder::Create(CompileCache cache,
                                                                 CompilerOptions options) {
  if (options.include_dir.empty()) {
    HONE_ASSIGN_OR_RETURN(options.include_dir, FindIncludeDir());
  }
  HONE_ASSIGN_OR_RETURN(std::string compiler, ProgramIdentity(options.compiler));
  HONE_ASSIGN_OR_RETURN(std::string header, ReadFile(options.include_dir / "hone" / "kernel.h"));
  std::string flags;
  for (const auto& f : options.flags) flags += f + " ";
  std::string identity = ContentHash({options.backend, compiler, flags, header});
  return std::unique_ptr<CompilerBuilder>(
      new CompilerBuilder(std::move(cache), std::move(options), std::move(identity)));
}

Result<BuildResult> CompilerBuilder::Build(const std::filesystem::path& source) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(source));
  std::string key = ContentHash({identity_, text});
  // Keyed by content, an entry serves every file with these bytes: its log
  // names the source by a placeholder, and each build's own file goes in
  // when it is returned (`cp bad.cpp other.cpp` must quote other.cpp).
  const std::string display = source.filename().string();
  if (auto hit = cache_.Lookup(key)) {
    hit->seconds = elapsed();
    return NamedAfter(std::move(*hit), display);
  }
  // Compile a private copy so error messages name the candidate, not a path,
  // and a source edited mid-build cannot produce a mislabelled artifact.
  HONE_ASSIGN_OR_RETURN(std::filesystem::path work, MakeTempDir(cache_.dir() / "tmp", "build"));
  std::filesystem::path copy = work / display;
  HONE_RETURN_IF_ERROR(WriteFileAtomic(copy, text));
  std::filesystem::path out = work / "candidate.so";
  std::vector<std::string> argv = {options_.compiler};
  argv.insert(argv.end(), options_.flags.begin(), options_.flags.end());
  argv.insert(argv.end(),
              {"-I" + options_.include_dir.string(), copy.string(), "-o", out.string()});
  CommandOptions copts;
  copts.timeout = options_.timeout;
  auto run = RunCommand(argv, copts);
  BuildResult r;
  r.key = key;
  r.command = QuoteCommand(argv);
  if (!run.ok()) {
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
    return run.status();
  }
  r.compile_seconds = run->seconds;
  r.full_log = run->output;
  r.ok = run->succeeded();
  if (run->timed_out) r.full_log += "\n(compiler timed out)";
  r.log = r.ok ? "" : TrimCompilerOutput(r.full_log, copy.string(), kSourcePlaceholder);
  if (r.ok && options_.ptxas_report) {
    auto kernels = ParsePtxasReport(r.full_log);
    for (const auto& k : kernels) r.kernels.push_back(k.name);
    r.resources = FormatResources(kernels);
  }
  if (r.ok) {
    std::filesystem::path dest = cache_.LibraryPath(key);
    std::error_code ec;
    std::filesystem::create_directories(dest.parent_path(), ec);
    std::filesystem::rename(out, dest, ec);
    if (ec) return Status::Io(dest.string() + ": cannot store the build: " + ec.message());
    r.library = dest;
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  HONE_RETURN_IF_ERROR(cache_.Store(r));
  r.seconds = elapsed();
  return NamedAfter(std::move(r), display);
}

}  // namespace hone
