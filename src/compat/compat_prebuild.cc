#include "compat/compat_prebuild.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "core/fs.h"
#include "core/hash.h"
#include "task/oracle_service.h"
#include "verify/note_words.h"

namespace hone {

namespace fs = std::filesystem;

bool CompatPrebuild::all_cached() const {
  return std::all_of(extensions.begin(), extensions.end(),
                     [](const PrebuiltExtension& e) { return e.cached; });
}

std::map<std::string, fs::path> CompatPrebuild::libraries() const {
  std::map<std::string, fs::path> out;
  for (const auto& e : extensions)
    if (e.ok) out[e.call.key] = e.library;
  return out;
}

std::map<std::string, std::string> CompatPrebuild::failures() const {
  std::map<std::string, std::string> out;
  for (const auto& e : extensions)
    if (!e.ok) out[e.call.key] = e.log;
  return out;
}

const PrebuiltExtension* CompatPrebuild::fatal_failure() const {
  for (const auto& e : extensions)
    if (!e.ok && !e.call.in_try && e.call.scope == "module") return &e;
  return nullptr;
}

CompatPrebuilder::CompatPrebuilder(OracleService& oracle, TorchExtensionBuilder& builder,
                                   fs::path work_dir, std::vector<std::string> decorators,
                                   int threads)
    : oracle_(oracle),
      builder_(builder),
      work_dir_(std::move(work_dir)),
      decorators_(std::move(decorators)),
      threads_(threads > 0 ? threads
                           : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

Result<std::string> CompatPrebuilder::FileKey(const fs::path& candidate) {
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(candidate));
  std::error_code ec;
  return ContentHash({fs::absolute(candidate, ec).string(), text});
}

Result<CompatPrebuild> CompatPrebuilder::Prepare(const fs::path& candidate,
                                                 const std::string& file_key,
                                                 std::vector<Pending>& pending) {
  fs::path python_dir = oracle_.python_dir();
  if (python_dir.empty()) return Status::Unavailable("the oracle is not running");
  std::string python = oracle_.hello().value("executable", "");
  HONE_ASSIGN_OR_RETURN(CompatScan scan,
                        ScanCompatFile(candidate, python_dir, python, decorators_));
  CompatPrebuild out;
  out.scan = std::move(scan);
  for (const auto& call : out.scan.extensions) {
    if (!call.resolved) {
      out.notes.push_back(notes::BuildsInSandbox(call.call, call.name, call.line, call.scope,
                                                 call.unresolved_reason));
      continue;
    }
    fs::path build_dir = work_dir_ / (call.key.substr(0, 16) + "-" + file_key.substr(0, 8));
    auto reply = oracle_.PrepareExtension(call.call, call.args, build_dir);
    Result<TorchExtensionPlan> plan = reply.ok() ? TorchExtensionPlanFromJson(*reply)
                                                 : Result<TorchExtensionPlan>(reply.status());
    PrebuiltExtension e;
    e.call = call;
    if (!plan.ok()) {
      // torch itself refuses the call (a bad argument): the module's own
      // load_inline raises the same in the sandbox. Anything else is hone's.
      if (plan.status().code() != StatusCode::kInvalidInput) return plan.status();
      e.log = plan.status().message();
      out.extensions.push_back(std::move(e));
      continue;
    }
    pending.push_back({file_key, out.extensions.size(), std::move(*plan)});
    out.extensions.push_back(std::move(e));
  }
  return out;
}

bool CompatPrebuilder::AnyToCompile(const std::vector<Pending>& pending) const {
  return std::any_of(pending.begin(), pending.end(),
                     [&](const Pending& p) { return !builder_.Cached(p.plan); });
}

struct CompatPrebuilder::Batch {
  std::vector<Pending> pending;
  std::map<std::string, CompatPrebuild> prepared;  // by FileKey
  std::function<void(int, int)> progress;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool compiles = false;  // some call was not in the builder's cache
  std::atomic<size_t> next{0};
  std::atomic<size_t> built{0};
  std::mutex mu;  // guards `prepared` and progress calls
  std::vector<std::thread> threads;

  // A compile is ahead of whoever waits for it.
  bool Compiling() const { return compiles && built < pending.size(); }
  bool Holds(const std::string& file_key) const { return prepared.count(file_key) > 0; }
};

CompatPrebuilder::~CompatPrebuilder() {
  if (started_)
    for (auto& t : started_->threads) t.join();
}

std::vector<CompatPrebuilder::KeyedFile> CompatPrebuilder::Keyed(
    const std::vector<fs::path>& candidates) {
  std::vector<KeyedFile> out;
  for (const auto& candidate : candidates)
    if (Result<std::string> key = FileKey(candidate); key.ok())
      out.emplace_back(candidate, std::move(*key));
  return out;
}

std::unique_ptr<CompatPrebuilder::Batch> CompatPrebuilder::StartBatch(
    const std::vector<KeyedFile>& candidates, const std::function<void(int, int)>& progress) {
  auto batch = std::make_unique<Batch>();
  batch->progress = progress;
  for (const auto& [candidate, key] : candidates) {
    if (done_.count(key) || batch->Holds(key) || (started_ && started_->Holds(key))) continue;
    Result<CompatPrebuild> p = Prepare(candidate, key, batch->pending);
    if (!p.ok()) {
      done_.emplace(key, p.status().With(candidate.string() + ": "));
      continue;
    }
    batch->prepared.emplace(key, std::move(*p));
  }
  if (batch->prepared.empty()) return nullptr;
  batch->compiles = AnyToCompile(batch->pending);
  auto work = [this, b = batch.get()] {
    for (size_t i; (i = b->next.fetch_add(1)) < b->pending.size();) {
      Pending& p = b->pending[i];
      Result<BuildResult> r = builder_.Build(p.plan);
      std::lock_guard<std::mutex> lock(b->mu);
      // at(), not []: a lookup the standard counts as const, beside Holds().
      PrebuiltExtension& e = b->prepared.at(p.file_key).extensions[p.index];
      if (!r.ok()) {
        e.log = "hone could not build it: " + r.status().message();
      } else {
        e.ok = r->ok;
        e.library = r->library;
        e.log = r->ok ? "" : r->log;
        e.cached = r->cached;
        e.seconds = r->seconds;
      }
      const size_t built = ++b->built;
      if (b->progress) b->progress(static_cast<int>(built), static_cast<int>(b->pending.size()));
    }
  };
  // Each build already runs its C++ and CUDA compiles at once.
  int n = std::min<int>(std::max(1, threads_ / 2), static_cast<int>(batch->pending.size()));
  for (int t = 0; t < n; ++t) batch->threads.emplace_back(work);
  return batch;
}

void CompatPrebuilder::Finish(std::unique_ptr<Batch> batch, bool aside) {
  if (!batch) return;
  for (auto& t : batch->threads) t.join();
  // One file: the wall time. Several built together, or one beside other
  // work: each file's own longest build, not the batch's wall.
  double seconds = SecondsSince(batch->start);
  const bool own_builds = batch->prepared.size() > 1 || aside;
  for (auto& [key, p] : batch->prepared) {
    p.seconds = own_builds ? 0 : seconds;
    for (const auto& e : p.extensions)
      if (own_builds) p.seconds = std::max(p.seconds, e.seconds);
    done_.emplace(key, std::move(p));
  }
}

Result<CompatPrebuild> CompatPrebuilder::Prebuild(const fs::path& candidate) {
  HONE_ASSIGN_OR_RETURN(std::string key, FileKey(candidate));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  PrebuildKeyed({{candidate, key}}, {}, {});
  return done_.at(key);
}

void CompatPrebuilder::Start(const fs::path& candidate) {
  Result<std::string> key = FileKey(candidate);
  if (!key.ok() || (started_ && started_->Holds(*key))) return;
  Finish(std::move(started_), true);
  started_ = StartBatch({{candidate, *key}}, {});
}

void CompatPrebuilder::PrebuildAll(const std::vector<fs::path>& candidates,
                                   const std::function<void(int, int)>& progress,
                                   const std::function<void()>& meanwhile) {
  PrebuildKeyed(Keyed(candidates), progress, meanwhile);
}

void CompatPrebuilder::PrebuildKeyed(const std::vector<KeyedFile>& candidates,
                                     const std::function<void(int, int)>& progress,
                                     const std::function<void()>& meanwhile) {
  // Start's builds are waited for by a call that needs them, not by another
  // file's (a nested Prebuild, meanwhile).
  const bool needs_started =
      started_ && std::any_of(candidates.begin(), candidates.end(),
                              [&](const KeyedFile& c) { return started_->Holds(c.second); });
  std::unique_ptr<Batch> fresh = StartBatch(candidates, progress);
  const bool aside =
      meanwhile && ((fresh && fresh->Compiling()) || (needs_started && started_->Compiling()));
  if (aside) meanwhile();
  if (needs_started) Finish(std::move(started_), true);
  Finish(std::move(fresh), aside);
}

}  // namespace hone
