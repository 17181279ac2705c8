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
  for (const auto& e : c.device_env) key += e + '\n';
  return key + (c.zygote ? "zygote\n" : "");
}

namespace {

bool NotTurnedOff(const char* variable) {
  const char* v = std::getenv(variable);
  return !v || std::strcmp(v, "0") != 0;
}

// A fork copies page tables and a few descriptors: milliseconds, unless the
// zygote is gone or wedged.
constexpr std::chrono::seconds kForkReplyWait{30};

}  // namespace

bool WarmSandboxesEnabled() { return NotTurnedOff("HONE_WARM_SANDBOXES"); }

bool ZygotesEnabled() { return NotTurnedOff("HONE_ZYGOTE"); }

WarmPool::WarmPool(bool enabled, int capacity, bool idle_priority,
                   std::chrono::milliseconds warm_wait)
    : enabled_(enabled),
      capacity_(capacity),
      idle_priority_(idle_priority),
      warm_wait_(warm_wait) {}

void WarmPool::Disable(std::string why) {
  warm_.clear();
  zygote_.reset();
  key_.clear();
  enabled_ = false;
  if (disabled_reason_.empty()) disabled_reason_ = std::move(why);
}

void WarmPool::Prepare(const SandboxConfig& config, int count) {
  if (!enabled_) return;
  const int wanted = count > 0 ? std::min(count, capacity_) : capacity_;
  std::string key = WarmKey(config);
  if (key.empty()) return;
  if (key != key_) {
    warm_.clear();
    zygote_.reset();
    zygote_failed_ = false;
  }
  key_ = key;
  std::erase_if(warm_, [](const auto& sp) { return !sp->alive(); });
  if (config.zygote && !zygote_ && !zygote_failed_) {
    auto z = SandboxProcess::SpawnZygote(config, idle_priority_);
    if (!z.ok()) return Disable("cannot start a warm sandbox: " + z.status().message());
    zygote_ = std::move(*z);
    Trace("warm pool: a sandbox starts Python and torch, a zygote to fork warm sandboxes from");
  }
  while (static_cast<int>(warm_.size()) < wanted) {
    if (zygote_) {
      Forked f = ForkFromZygote(config, /*waiting=*/false);
      if (f == Forked::kOne) continue;
      if (f == Forked::kNotYet) return;  // Take or a later Prepare forks them
    }
    auto sp = SandboxProcess::SpawnWarm(config, idle_priority_);
    if (!sp.ok()) return Disable("cannot start a warm sandbox: " + sp.status().message());
    warm_.push_back(std::move(*sp));
    Trace("warm pool: a sandbox starts Python and torch");
  }
}

WarmPool::Forked WarmPool::ForkFromZygote(const SandboxConfig& config, bool waiting) {
  if (zygote_->warming()) {
    if (!waiting && !zygote_->ReplyWaiting()) return Forked::kNotYet;
    zygote_->Resume();
    zygote_->Hurry();
    CallOutcome o = zygote_->AwaitWarm(warm_wait_);
    if (!o.ok()) return LetZygoteGo("it did not warm: " + o.detail);
  }
  zygote_->Hurry();  // it only forks from here on: never starve it
  auto sp = SandboxProcess::ForkWarm(*zygote_, config, kForkReplyWait);
  if (!sp.ok()) return LetZygoteGo(sp.status().message());
  warm_.push_back(std::move(*sp));
  Trace("warm pool: a warm sandbox forked from the zygote");
  return Forked::kOne;
}

WarmPool::Forked WarmPool::LetZygoteGo(std::string why) {
  Trace("warm pool: the zygote is let go (" + why + "); sandboxes warm one by one");
  zygote_.reset();
  zygote_failed_ = true;
  zygote_failure_ = std::move(why);
  return Forked::kFailed;
}

std::unique_ptr<SandboxProcess> WarmPool::Take(const SandboxConfig& config, const Arena& arena,
                                               bool refill) {
  if (!enabled_ || key_ != WarmKey(config)) return nullptr;
  std::erase_if(warm_, [](const auto& sp) { return !sp->alive(); });
  if (warm_.empty() && zygote_ && ForkFromZygote(config, /*waiting=*/true) == Forked::kFailed)
    Prepare(config, 1);  // one by one from now on
  if (warm_.empty()) return nullptr;
  std::unique_ptr<SandboxProcess> sp = std::move(warm_.front());  // the oldest: the most warmed
  warm_.erase(warm_.begin());
  sp->Resume();
  sp->HandOffWhenWarm(config, arena);
  Trace("warm pool: a sandbox taken");
  if (refill) Prepare(config);
  return sp;
}

void WarmPool::Settle(std::chrono::milliseconds wait) {
  if (zygote_ && !zygote_->idle_priority() && zygote_->warming()) {
    CallOutcome o = zygote_->AwaitWarm(wait);
    if (!o.ok()) return Disable("a warm sandbox failed to start Python: " + o.detail);
  }
  for (auto& sp : warm_) {
    if (sp->idle_priority() || !sp->warming()) continue;
    CallOutcome o = sp->AwaitWarm(wait);
    if (!o.ok()) return Disable("a warm sandbox failed to start Python: " + o.detail);
  }
}

void WarmPool::Pause() {
  auto pause = [](SandboxProcess& sp) {
    if (!sp.idle_priority() || !sp.warming() || sp.paused()) return;
    Trace("warm pool: a warming sandbox paused for a host-bound measurement");
    sp.Pause();
  };
  if (zygote_) pause(*zygote_);
  for (auto& sp : warm_) pause(*sp);
}

void WarmPool::Resume() {
  if (zygote_) zygote_->Resume();
  for (auto& sp : warm_) sp->Resume();
}

int WarmPool::paused() const {
  return static_cast<int>(
      std::count_if(warm_.begin(), warm_.end(), [](const auto& sp) { return sp->paused(); }) +
      (zygote_ && zygote_->paused()));
}

}  // namespace hone
