// How long hone takes to build the load_inline extensions of ModelNew files,
// and how each CUDA source was built: split into a host and a device half
// (build/cuda_split_step.h) or whole (with the reason). Every .py file of DIR
// is prebuilt as an evaluation would (the oracle prepares each load_inline
// call, TorchExtensionBuilder builds it), first one at a time, then, with
// --parallel, fresh copies of all of them at once on the prebuilder's threads.
//
//   build/bench/extension_build_bench DIR [--device cuda:0] [--warm FILE]
//                                         [--no-split] [--parallel] [--budget S] [--json]
//
// --budget stops starting files one at a time after S seconds (whole builds
// take about a minute each on an H100 host); --parallel still takes them all.
// --warm builds FILE first, uncounted (the precompiled header of
// torch/extension.h is then in place: what "cold" means for a file). The
// cache is HONE_CACHE's, so point HONE_CACHE at an empty folder for cold
// figures. Files are third-party code only to the oracle's scanner and the
// compilers; nothing they define runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "build/torch_extension.h"
#include "compat/compat_prebuild.h"
#include "core/clock.h"
#include "core/fs.h"
#include "task/oracle_service.h"

namespace {

using namespace hone;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int Fail(const std::string& what) {
  std::fprintf(stderr, "extension_build_bench: %s\n", what.c_str());
  return 1;
}

// "split", "whole: <why>" or "C++ only", from the build's own log (the
// cache's record beside the library).
std::string HowBuilt(const PrebuiltExtension& e) {
  if (!e.ok) return "failed";
  fs::path record = e.library;
  auto text = ReadFile(record.replace_extension(".json"));
  if (!text.ok()) return "?";
  std::string log = nlohmann::json::parse(*text, nullptr, false).value("full_log", "");
  if (log.find("# split into halves") != std::string::npos) return "split";
  size_t whole = log.find("# built whole: ");
  if (whole != std::string::npos) {
    size_t end = log.find('\n', whole);
    return "whole: " + log.substr(whole + 15, end == std::string::npos ? end : end - whole - 15);
  }
  return "C++ only";
}

struct Row {
  std::string file, how;
  bool ok = false;
  double seconds = 0;
};

// The same file under a new content (a comment): a cache miss.
Result<fs::path> FreshCopy(const fs::path& file, const fs::path& dir, const std::string& nonce) {
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
  std::string marker = "__global__";
  size_t at = text.find(marker);
  if (at != std::string::npos) text.insert(at, "// copy " + nonce + "\n");
  fs::path out = dir / file.filename();
  HONE_RETURN_IF_ERROR(WriteFileAtomic(out, text));
  return out;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // A line per file as it is built, so a run cut short by a time limit
  // still shows what it built.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string device = "cuda:0";
  fs::path dir, warm;
  bool split = true, parallel = false, json_out = false;
  double budget = 1e9;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--device")
      device = next();
    else if (a == "--warm")
      warm = next();
    else if (a == "--no-split")
      split = false;
    else if (a == "--parallel")
      parallel = true;
    else if (a == "--json")
      json_out = true;
    else if (a == "--budget")
      budget = std::atof(next().c_str());
    else if (dir.empty() && a[0] != '-')
      dir = a;
    else {
      std::fprintf(stderr,
                   "usage: extension_build_bench DIR [--device D] [--warm FILE] "
                   "[--no-split] [--parallel] [--json]\n");
      return 2;
    }
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) return Fail("no .py files in '" + dir.string() + "'");

  auto oracle = OracleService::Start(device);
  if (!oracle.ok()) return Fail(oracle.status().message());
  auto cache = CacheDir();
  if (!cache.ok()) return Fail(cache.status().message());
  TorchExtensionOptions options;
  options.split_cuda = split;
  TorchExtensionBuilder builder(*cache / "torch-extensions", options);
  auto work = MakeTempDir(*cache / "tmp", "extension-bench");
  if (!work.ok()) return Fail(work.status().message());
  CompatPrebuilder prebuilder(**oracle, builder, *work);
  if (!warm.empty()) (void)prebuilder.Prebuild(warm);

  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, int> counts;
  std::map<std::string, std::vector<double>> seconds;
  auto serial_start = Clock::now();
  size_t serial_files = 0;
  for (const auto& f : files) {
    if (SecondsSince(serial_start) > budget) break;
    ++serial_files;
    auto p = prebuilder.Prebuild(f);
    if (!p.ok()) {
      rows.push_back({{"file", f.filename().string()}, {"error", p.status().message()}});
      ++counts["error"];
      continue;
    }
    for (const auto& e : p->extensions) {
      std::string how = HowBuilt(e);
      std::string kind = how.rfind("whole", 0) == 0 ? "whole" : how;
      ++counts[kind];
      if (!e.cached) seconds[kind].push_back(e.seconds);
      rows.push_back({{"file", f.filename().string()},
                      {"ok", e.ok},
                      {"cached", e.cached},
                      {"seconds", e.seconds},
                      {"how", how}});
      if (!json_out)
        std::printf("%-44s %-6s %6.1f s  %s\n", f.filename().string().substr(0, 44).c_str(),
                    e.ok ? "ok" : "FAILED", e.seconds, how.substr(0, 90).c_str());
    }
  }
  nlohmann::json j = {{"device", device},
                      {"files", files.size()},
                      {"split_enabled", split},
                      {"serial_wall_s", SecondsSince(serial_start)},
                      {"rows", rows}};
  for (const auto& [kind, n] : counts) j["counts"][kind] = n;
  for (const auto& [kind, s] : seconds)
    j["seconds"][kind] = {
        {"median", Median(s)}, {"max", *std::max_element(s.begin(), s.end())}, {"n", s.size()}};

  if (parallel) {
    auto copies = MakeTempDir(*cache / "tmp", "extension-bench-copies");
    if (!copies.ok()) return Fail(copies.status().message());
    std::string nonce = std::to_string(Clock::now().time_since_epoch().count());
    std::vector<fs::path> fresh;
    for (const auto& f : files)
      if (auto c = FreshCopy(f, *copies, nonce); c.ok()) fresh.push_back(*c);
    auto start = Clock::now();
    prebuilder.PrebuildAll(fresh);
    j["parallel"] = {{"files", fresh.size()}, {"wall_s", SecondsSince(start)}};
  }
  if (json_out) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("\n%zu of %zu files, split %s, one at a time: %.1f s\n", serial_files, files.size(),
              split ? "on" : "off", j["serial_wall_s"].get<double>());
  for (const auto& [kind, n] : counts) std::printf("  %-10s %3d builds\n", kind.c_str(), n);
  for (const auto& [kind, s] : seconds)
    std::printf("  %-10s cold build median %.1f s, max %.1f s (%zu)\n", kind.c_str(), Median(s),
                *std::max_element(s.begin(), s.end()), s.size());
  if (parallel)
    std::printf("  all %zu again at once (new content): %.1f s\n",
                j["parallel"]["files"].get<size_t>(), j["parallel"]["wall_s"].get<double>());
  return 0;
}
