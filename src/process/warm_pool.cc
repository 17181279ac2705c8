#include "process/warm_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/trace.h"

namespace hone {

std::string WarmKey(const SandboxConfig& c) {
  if (!c.compat || c.profile || c.python_library.empty() || c.python_runner.empty()) return "";
  std::string key = c.executable.string() + '\n' + c.scratch_root.string() + '\n' +
                    c.python_library.string() + '\n' + c.python_runner.string() + '\n' +
                    std::to_string(c.threads) + '\n' + std::to_string(c.cpu_seconds) + '\n';
  for (const auto& e : c.extra_env) key += e + '\n';
  return key;
}

bool WarmSandboxesEnabled() {
  const char* v = std::getenv("HONE_WARM_SANDBOXES");
  return !v || std::strcmp(v, "0") != 0;
}

WarmPool::WarmPool(bool enabled, int capacity, bool idle_priority)
    : enabled_(enabled), capacity_(capacity), idle_priority_(idle_priority) {}

void WarmPool::Disable(std::string why) {
  warm_.clear();
  key_.clear();
  enabled_ = false;
  if (disabled_reason_.empty()) disabled_reason_ = std::move(why);
}

void WarmPool::Prepare(const SandboxConfig& config, int count) {
  if (!enabled_) return;
  const int wanted = count > 0 ? std::min(count, capacity_) : capacity_;
  std::string key = WarmKey(config);
  if (key.empty()) return;
  if (key != key_) warm_.clear();
  key_ = key;
  std::erase_if(warm_, [](const auto& sp) { return !sp->alive(); });
  while (static_cast<int>(warm_.size()) < wanted) {
    auto sp = SandboxProcess::SpawnWarm(config, idle_priority_);
    if (!sp.ok()) return Disable("cannot start a warm sandbox: " + sp.status().message());
    warm_.push_back(std::move(*sp));
    Trace("warm pool: a sandbox starts Python and torch");
  }
}

std::unique_ptr<SandboxProcess> WarmPool::Take(const SandboxConfig& config, const Arena& arena,
                                               bool refill) {
  if (!enabled_ || warm_.empty() || key_ != WarmKey(config)) return nullptr;
  std::unique_ptr<SandboxProcess> sp = std::move(warm_.front());  // the oldest: the most warmed
  warm_.erase(warm_.begin());
  sp->Resume();
  sp->HandOffWhenWarm(config, arena);
  Trace("warm pool: a sandbox taken");
  if (refill) Prepare(config);
  return sp;
}

void WarmPool::Settle(std::chrono::milliseconds wait) {
  for (auto& sp : warm_) {
    if (sp->idle_priority() || !sp->warming()) continue;
    CallOutcome o = sp->AwaitWarm(wait);
    if (!o.ok()) return Disable("a warm sandbox failed to start Python: " + o.detail);
  }
}

void WarmPool::Pause() {
  for (auto& sp : warm_) {
    if (!sp->idle_priority() || !sp->warming() || sp->paused()) continue;
    Trace("warm pool: a warming sandbox paused for a host-bound measurement");
    sp->Pause();
  }
}

void WarmPool::Resume() {
  for (auto& sp : warm_) sp->Resume();
}

int WarmPool::paused() const {
  return static_cast<int>(
      std::count_if(warm_.begin(), warm_.end(), [](const auto& sp) { return sp->paused(); }));
}

}  // namespace hone
