#include "build/torch_extension.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>

#include "build/compiler_builder.h"
#include "build/cuda_split_step.h"
#include "build/error_trim.h"
#include "build/ptxas_report.h"
#include "core/file_lock.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/subprocess.h"
#include "core/temp_dir.h"

namespace hone {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// ---- the plan from JSON ---------------------------------------------------

Status FieldError(const std::string& field, const std::string& what) {
  return Status::Invalid("prepare_extension reply: '" + field + "' " + what);
}

Result<std::string> StringField(const json& j, const std::string& key, const std::string& where,
                                bool required = true) {
  if (!j.contains(key) || j[key].is_null()) {
    if (required) return FieldError(where + key, "is missing");
    return std::string();
  }
  if (!j[key].is_string()) return FieldError(where + key, "must be a string");
  return j[key].get<std::string>();
}

Result<std::vector<std::string>> StringList(const json& j, const std::string& key,
                                            const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return std::vector<std::string>{};
  if (!j[key].is_array()) return FieldError(where + key, "must be a list of strings");
  std::vector<std::string> out;
  for (const auto& e : j[key]) {
    if (!e.is_string()) return FieldError(where + key, "must be a list of strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

// "/a/b/" and "/a/./b" -> "/a/b": paths compare as text below.
fs::path Normal(const std::string& p) {
  fs::path n = fs::path(p).lexically_normal();
  return n.has_filename() || n == n.root_path() ? n : n.parent_path();
}

Result<std::vector<fs::path>> AbsolutePaths(const json& j, const std::string& key,
                                            const std::string& where) {
  HONE_ASSIGN_OR_RETURN(std::vector<std::string> list, StringList(j, key, where));
  std::vector<fs::path> out;
  for (const auto& p : list) {
    if (!fs::path(p).is_absolute()) return FieldError(where + key, "must hold absolute paths");
    out.push_back(Normal(p));
  }
  return out;
}

Result<TorchExtensionStep> StepFromJson(const json& j, size_t index) {
  std::string where = "steps[" + std::to_string(index) + "].";
  if (!j.is_object())
    return FieldError("steps[" + std::to_string(index) + "]", "must be an object");
  TorchExtensionStep s;
  HONE_ASSIGN_OR_RETURN(s.id, StringField(j, "id", where));
  HONE_ASSIGN_OR_RETURN(s.kind, StringField(j, "kind", where));
  if (s.kind != "cxx" && s.kind != "nvcc" && s.kind != "link")
    return FieldError(where + "kind", "must be cxx, nvcc or link, not '" + s.kind + "'");
  HONE_ASSIGN_OR_RETURN(s.argv, StringList(j, "argv", where));
  if (s.argv.empty()) return FieldError(where + "argv", "must name a program");
  HONE_ASSIGN_OR_RETURN(s.inputs, AbsolutePaths(j, "inputs", where));
  HONE_ASSIGN_OR_RETURN(s.outputs, AbsolutePaths(j, "outputs", where));
  if (s.outputs.empty()) return FieldError(where + "outputs", "must not be empty");
  return s;
}

Result<TorchToolchain> ToolchainFromJson(const json& reply) {
  TorchToolchain t;
  if (!reply.contains("toolchain")) return t;
  const json& j = reply["toolchain"];
  if (!j.is_object()) return FieldError("toolchain", "must be an object");
  HONE_ASSIGN_OR_RETURN(t.torch, StringField(j, "torch", "toolchain.", false));
  HONE_ASSIGN_OR_RETURN(t.cxx, StringField(j, "cxx", "toolchain.", false));
  HONE_ASSIGN_OR_RETURN(t.nvcc, StringField(j, "nvcc", "toolchain.", false));
  HONE_ASSIGN_OR_RETURN(t.cuda_arch_flags, StringList(j, "cuda_arch_flags", "toolchain."));
  return t;
}

Result<bool> BoolField(const json& j, const std::string& key, bool fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean()) return FieldError(key, "must be true or false");
  return j[key].get<bool>();
}

// ---- relocation: the plan's build folder -> this build's private copy -----

// `arg` with every occurrence of the folder `from` (as a whole path prefix:
// "/b/x" matches "/b/x" and "/b/x/y", not "/b/xy") replaced by `to`.
std::string Relocate(const std::string& arg, const std::string& from, const std::string& to) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = arg.find(from, pos);
    if (at == std::string::npos) break;
    size_t end = at + from.size();
    bool whole = end == arg.size() || arg[end] == '/';
    out += arg.substr(pos, at - pos) + (whole ? to : from);
    pos = end;
  }
  return out + arg.substr(pos);
}

TorchExtensionStep RelocateStep(const TorchExtensionStep& s, const std::string& from,
                                const std::string& to) {
  TorchExtensionStep r = s;
  for (auto& a : r.argv) a = Relocate(a, from, to);
  for (auto& p : r.inputs) p = Relocate(p.string(), from, to);
  for (auto& p : r.outputs) p = Relocate(p.string(), from, to);
  return r;
}

std::set<fs::path> Produced(const TorchExtensionPlan& plan) {
  std::set<fs::path> out;
  for (const auto& s : plan.steps) out.insert(s.outputs.begin(), s.outputs.end());
  return out;
}

// The plan's sources: inputs no step produces.
std::vector<fs::path> Sources(const TorchExtensionPlan& plan) {
  std::set<fs::path> produced = Produced(plan), seen;
  std::vector<fs::path> out;
  for (const auto& s : plan.steps)
    for (const auto& in : s.inputs)
      if (!produced.count(in) && seen.insert(in).second) out.push_back(in);
  return out;
}

bool Under(const fs::path& p, const fs::path& dir) {
  std::string s = p.string(), d = dir.string();
  return s.size() > d.size() && s.compare(0, d.size(), d) == 0 && s[d.size()] == '/';
}

// Length-prefixed parts, so that ("ab","c") and ("a","bc") differ.
void AddPart(std::string& blob, const std::string& part) {
  blob += std::to_string(part.size()) + ':' + part;
}

// ---- running the steps ----------------------------------------------------

struct StepRun {
  std::vector<std::string> argv;  // as run (with the precompiled header)
  std::optional<Result<CommandResult>> run;
  std::string note;
  bool ok() const { return run && run->ok() && (*run)->succeeded(); }
};

std::string StepLog(const TorchExtensionStep& step, const StepRun& r) {
  std::string log = "$ " + QuoteCommand(r.argv) + "\n";
  if (!r.note.empty()) log += "# " + r.note + "\n";
  if (!r.run) return log;
  if (!r.run->ok()) return log + r.run->status().message() + "\n";
  const CommandResult& c = **r.run;
  log += c.output;
  char took[64];
  std::snprintf(took, sizeof took, "# %.1f s\n", c.seconds);
  log += took;
  if (c.timed_out) log += "\n(" + step.id + ": timed out)\n";
  if (c.term_signal)
    log += "\n(" + step.id + ": killed by signal " + std::to_string(c.term_signal) + ")\n";
  return log;
}

}  // namespace

Result<TorchExtensionPlan> TorchExtensionPlanFromJson(const json& reply) {
  if (!reply.is_object()) return Status::Invalid("prepare_extension reply: not an object");
  if (reply.contains("ok") && reply["ok"].is_boolean() && !reply["ok"].get<bool>()) {
    return Status::Invalid("prepare_extension failed: " +
                           (reply.contains("error") && reply["error"].is_string()
                                ? reply["error"].get<std::string>()
                                : std::string("(no error message)")));
  }
  TorchExtensionPlan p;
  HONE_ASSIGN_OR_RETURN(p.key, StringField(reply, "key", ""));
  HONE_ASSIGN_OR_RETURN(p.kind, StringField(reply, "kind", "", false));
  HONE_ASSIGN_OR_RETURN(p.name, StringField(reply, "name", ""));
  HONE_ASSIGN_OR_RETURN(std::string build_dir, StringField(reply, "build_dir", ""));
  HONE_ASSIGN_OR_RETURN(std::string library, StringField(reply, "library", ""));
  p.build_dir = Normal(build_dir);
  p.library = Normal(library);
  if (!p.build_dir.is_absolute()) return FieldError("build_dir", "must be an absolute path");
  HONE_ASSIGN_OR_RETURN(p.with_cuda, BoolField(reply, "with_cuda", false));
  HONE_ASSIGN_OR_RETURN(p.is_python_module, BoolField(reply, "is_python_module", true));
  HONE_ASSIGN_OR_RETURN(p.toolchain, ToolchainFromJson(reply));
  if (!reply.contains("steps") || !reply["steps"].is_array() || reply["steps"].empty())
    return FieldError("steps", "must be a non-empty list");
  for (size_t i = 0; i < reply["steps"].size(); ++i) {
    HONE_ASSIGN_OR_RETURN(TorchExtensionStep s, StepFromJson(reply["steps"][i], i));
    p.steps.push_back(std::move(s));
  }
  if (!Produced(p).count(p.library)) return FieldError("library", "is not the output of any step");
  return p;
}

Result<std::string> TorchExtensionCacheKey(const TorchExtensionPlan& plan) {
  const std::string from = plan.build_dir.string(), to = "$BUILD_DIR";
  std::string blob;
  AddPart(blob, "torch-extension-v1");
  AddPart(blob, plan.key);
  AddPart(blob, plan.name);
  AddPart(blob, plan.is_python_module ? "module" : "library");
  for (const auto& s : {plan.toolchain.torch, plan.toolchain.cxx, plan.toolchain.nvcc})
    AddPart(blob, s);
  for (const auto& f : plan.toolchain.cuda_arch_flags) AddPart(blob, f);
  AddPart(blob, Relocate(plan.library.string(), from, to));
  for (const auto& step : plan.steps) {
    TorchExtensionStep s = RelocateStep(step, from, to);
    AddPart(blob, s.kind);
    AddPart(blob, s.id);
    // The compiler as a file (path, size, mtime): an upgrade rebuilds.
    auto identity = ProgramIdentity(s.argv[0]);
    AddPart(blob, identity.ok() ? *identity : s.argv[0]);
    for (const auto& a : s.argv) AddPart(blob, a);
    for (const auto& p : s.outputs) AddPart(blob, p.string());
  }
  for (const auto& src : Sources(plan)) {
    auto text = ReadFile(src);
    if (!text.ok())
      return Status::NotFound(src.string() + ": a source of extension '" + plan.name +
                              "' is missing");
    AddPart(blob, Relocate(src.string(), from, to));
    AddPart(blob, ContentHash({*text}));
  }
  return ContentHash({blob});
}

TorchExtensionBuilder::TorchExtensionBuilder(fs::path cache_dir, TorchExtensionOptions options)
    : cache_dir_(std::move(cache_dir)), options_(options), cache_(cache_dir_) {
  if (options_.precompiled_header)
    pch_ = std::make_unique<TorchPch>(cache_dir_ / "pch", options_.step_timeout,
                                      options_.header_in_background);
  if (const char* e = std::getenv("HONE_CUDA_SPLIT"); e && std::string(e) == "0")
    options_.split_cuda = false;
}

void TorchExtensionBuilder::StartHeaderBuilds() {
  if (pch_) pch_->StartWantedBuilds();
}

void TorchExtensionBuilder::WaitForHeaders(std::chrono::seconds limit) {
  if (pch_) pch_->WaitForBackgroundBuilds(limit);
}

bool TorchExtensionBuilder::Cached(const TorchExtensionPlan& plan) const {
  Result<std::string> key = TorchExtensionCacheKey(plan);
  return key.ok() && cache_.Lookup(*key).has_value();
}

Result<BuildResult> TorchExtensionBuilder::Build(const TorchExtensionPlan& plan) {
  auto start = std::chrono::steady_clock::now();
  HONE_ASSIGN_OR_RETURN(std::string key, TorchExtensionCacheKey(plan));
  std::optional<BuildResult> hit = cache_.Lookup(key);
  std::optional<FileLock> same;
  if (!hit) {
    // Builds of one extension at once (bench lanes given the same file, a
    // prebuild and a second evaluation) would each compile it, 10-20 s of
    // a core apiece: the later ones wait for the first and take its result.
    // Past the wait, or where the lock cannot be had, they build anyway.
    std::error_code ec;
    fs::create_directories(cache_dir_ / "locks", ec);
    same.emplace(cache_dir_ / "locks" / (key + ".lock"),
                 std::chrono::duration_cast<std::chrono::milliseconds>(options_.step_timeout));
    hit = cache_.Lookup(key);
  }
  Result<BuildResult> r = hit ? Result<BuildResult>(*hit) : BuildUncached(plan, key);
  if (r.ok())
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

namespace {

Status CopySources(const TorchExtensionPlan& plan, const fs::path& work) {
  for (const auto& src : Sources(plan)) {
    if (!Under(src, plan.build_dir)) continue;  // load()'s own files stay where they are
    HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(src));
    HONE_RETURN_IF_ERROR(WriteFileAtomic(work / src.lexically_relative(plan.build_dir), text));
  }
  return Status::Ok();
}

// Steps whose inputs are all made (or sources), in plan order.
std::vector<size_t> Ready(const std::vector<TorchExtensionStep>& steps,
                          const std::vector<bool>& done) {
  std::set<fs::path> pending;
  for (size_t i = 0; i < steps.size(); ++i)
    if (!done[i]) pending.insert(steps[i].outputs.begin(), steps[i].outputs.end());
  std::vector<size_t> ready;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (done[i]) continue;
    bool waits = false;
    for (const auto& in : steps[i].inputs) waits = waits || pending.count(in);
    if (!waits) ready.push_back(i);
  }
  return ready;
}

// The steps after a split one link its two halves instead of its object.
void TakeHalves(std::vector<TorchExtensionStep>& steps, size_t split,
                const std::vector<fs::path>& halves, const fs::path& work) {
  const fs::path& object = steps[split].outputs.front();
  std::set<std::string> names = {object.string(), object.lexically_relative(work).string()};
  for (size_t j = 0; j < steps.size(); ++j) {
    if (j == split) continue;
    std::vector<std::string> argv;
    for (const auto& a : steps[j].argv) {
      if (!names.count(a)) {
        argv.push_back(a);
        continue;
      }
      for (const auto& h : halves) argv.push_back(h.string());
    }
    steps[j].argv = std::move(argv);
    std::vector<fs::path> inputs;
    for (const auto& in : steps[j].inputs) {
      if (in != object)
        inputs.push_back(in);
      else
        inputs.insert(inputs.end(), halves.begin(), halves.end());
    }
    steps[j].inputs = std::move(inputs);
  }
}

// Runs CUDA step `i` as two halves where it can (cuda_split_step.h); false
// (with the reason in run.note) when the step must run whole.
bool TrySplit(const TorchExtensionOptions& options, TorchPch* pch,
              const std::vector<TorchExtensionStep>& steps, size_t i, const fs::path& work,
              StepRun& run, std::vector<fs::path>& halves) {
  if (!options.split_cuda) return false;
  const TorchExtensionStep* cxx = nullptr;
  for (const auto& s : steps)
    if (s.kind == "cxx" && !cxx) cxx = &s;
  if (!cxx) return false;
  std::string why;
  auto split = RunCudaSplitStep(steps[i], *cxx, work, pch, options.step_timeout, &why);
  if (!split) {
    run.note = "built whole: " + why;
    return false;
  }
  run.argv = split->argv;
  run.run = split->run;
  run.note = split->note;
  halves = split->objects;
  return true;
}

}  // namespace

Result<BuildResult> TorchExtensionBuilder::BuildUncached(const TorchExtensionPlan& plan,
                                                         const std::string& key) {
  HONE_ASSIGN_OR_RETURN(fs::path tmp, MakeTempDir(cache_dir_ / "tmp", "ext"));
  TempDirOwner work(tmp);  // the build's private copy of the plan's folder
  HONE_RETURN_IF_ERROR(CopySources(plan, work.path()));
  const std::string from = plan.build_dir.string(), to = work.path().string();
  std::vector<TorchExtensionStep> steps;
  for (const auto& s : plan.steps) steps.push_back(RelocateStep(s, from, to));

  BuildResult r;
  r.key = key;
  std::vector<StepRun> runs(steps.size());
  std::vector<std::vector<fs::path>> halves(steps.size());  // a split step's objects
  std::vector<bool> done(steps.size(), false);
  auto compile_start = std::chrono::steady_clock::now();
  bool failed = false;
  while (!failed) {
    std::vector<size_t> wave = Ready(steps, done);
    if (wave.empty()) break;
    // The compiles of one wave (C++ and CUDA) run at once: neither waits.
    std::vector<std::thread> threads;
    for (size_t i : wave) {
      threads.emplace_back([&, i] {
        const TorchExtensionStep& s = steps[i];
        if (s.kind == "nvcc" &&
            TrySplit(options_, pch_.get(), steps, i, work.path(), runs[i], halves[i]))
          return;
        runs[i].argv = s.kind == "cxx" && pch_ && !s.inputs.empty()
                           ? pch_->Apply(s.argv, s.inputs.front(), &runs[i].note)
                           : s.argv;
        CommandOptions o;
        o.timeout = options_.step_timeout;
        o.cwd = work.path().string();
        o.max_output_bytes = 4 << 20;
        runs[i].run = RunCommand(runs[i].argv, o);
      });
    }
    for (auto& t : threads) t.join();
    for (size_t i : wave) {
      done[i] = true;
      if (!runs[i].run->ok()) return runs[i].run->status();  // no compiler: not a verdict
      failed = failed || !runs[i].ok();
      if (!halves[i].empty()) TakeHalves(steps, i, halves[i], work.path());
    }
  }
  r.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - compile_start).count();

  bool timed_out = false;
  std::string failed_output;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!runs[i].run) continue;
    r.command += (r.command.empty() ? "" : "\n") + QuoteCommand(runs[i].argv);
    r.full_log += StepLog(steps[i], runs[i]);
    const CommandResult& c = **runs[i].run;
    timed_out = timed_out || c.timed_out;
    if (!runs[i].ok() && failed_output.empty())
      failed_output =
          c.output.empty() || c.timed_out || c.term_signal ? StepLog(steps[i], runs[i]) : c.output;
    if (steps[i].kind == "nvcc" && runs[i].ok()) {
      auto kernels = ParsePtxasReport(c.output);
      for (const auto& k : kernels) r.kernels.push_back(k.name);
      if (!kernels.empty()) r.resources += FormatResources(kernels);
    }
  }
  // Logs name the plan's folder, not this build's temporary copy.
  r.full_log = Relocate(r.full_log, to, from);
  r.command = Relocate(r.command, to, from);
  r.ok = !failed;
  if (!r.ok) r.log = TrimCompilerOutput(failed_output, to + "/", "");

  if (r.ok) {
    fs::path built = Relocate(plan.library.string(), from, to);
    fs::path dest = cache_.LibraryPath(key);
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    fs::rename(built, dest, ec);
    if (ec) return Status::Io(dest.string() + ": cannot store the build: " + ec.message());
    r.library = dest;
  }
  if (!timed_out) HONE_RETURN_IF_ERROR(cache_.Store(r));
  return r;
}

}  // namespace hone
