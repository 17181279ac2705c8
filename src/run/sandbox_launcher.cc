#include "run/sandbox_launcher.h"

#include "compat/compat_sandbox.h"

namespace hone {

SandboxConfig BaseConfig(const EvaluatorEnv& env, const Backend& backend, const EvalOptions& opt) {
  SandboxConfig config;
  config.executable = backend.sandbox_executable();
  config.scratch_root = env.scratch_root;
  config.memory_limit_bytes =
      opt.memory_limit_bytes ? opt.memory_limit_bytes : DefaultMemoryLimit();
  config.llc_bytes = opt.time && opt.flush == FlushMode::kLlc ? backend.machine().llc_bytes : 0;
  config.threads = opt.threads;
  config.limit_address_space = backend.traits().limit_address_space;
  config.open_files = backend.traits().open_files;
  config.seccomp = opt.seccomp;
  config.landlock = opt.landlock;
  config.netns = opt.netns;
  config.profile = opt.profile;
  return config;
}

Result<std::unique_ptr<SandboxProcess>> SandboxLauncher::Spawn(const SandboxConfig& config,
                                                               const Arena& arena, bool* warm) {
  ResumeWarming();  // nothing is timed while sandboxes start
  if (pool_)
    if (auto sp = pool_->Take(config, arena, refill_)) {
      if (warm) *warm = true;
      return sp;
    }
  if (warm) *warm = false;
  return SandboxProcess::Spawn(config, arena);
}

CallOutcome SandboxLauncher::AwaitStart(std::unique_ptr<SandboxProcess>& sp,
                                        const SandboxConfig& config, const Arena& arena,
                                        std::chrono::milliseconds timeout, bool* warm) {
  CallOutcome o = sp->AwaitReady(timeout);
  if (o.ok() || !sp->warm_failed()) return o;
  // It never warmed, so the candidate never ran: no verdict comes of it.
  pool_->Disable("a warm sandbox failed to start Python: " + o.detail);
  auto cold = Spawn(config, arena, warm);
  if (!cold.ok()) {
    o.kind = CallOutcome::Kind::kSandboxError;
    o.detail = cold.status().message();
    return o;
  }
  sp = std::move(*cold);
  return sp->AwaitReady(timeout);
}

void SandboxLauncher::ResumeWarming() {
  if (pool_) pool_->Resume();
}

void SandboxLauncher::PauseWarming() {
  if (pool_) pool_->Pause();
}

void SandboxLauncher::Settle(bool host_bound) {
  if (host_bound) PauseWarming();
  if (pool_) pool_->Settle(std::chrono::milliseconds(kCompatStartMillis));
}

}  // namespace hone
