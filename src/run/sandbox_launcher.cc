#include "run/sandbox_launcher.h"

#include <algorithm>

#include "compat/compat_sandbox.h"

namespace hone {

namespace {

// The host cache a CPU timing flush evicts: the machine's last-level cache,
// at most 128 MiB. The flush writes twice that before every timed call, and
// a machine can report far more than one core reaches: a 2-core virtual
// machine that reports its host's whole L3 (508 MiB) wrote 1 GiB before each
// call, which took most of a timed evaluation's time. Past the cap the
// sandbox also flushes the bound tensors' own lines (clflushopt), so the
// candidate's inputs and outputs start cold whatever the buffer leaves.
size_t FlushedCacheBytes(const Backend& backend) {
  constexpr size_t kLargestFlushedHostCache = size_t{128} << 20;
  size_t llc = backend.machine().llc_bytes;
  return backend.traits().device_memory ? llc : std::min(llc, kLargestFlushedHostCache);
}

}  // namespace

SandboxConfig BaseConfig(const EvaluatorEnv& env, const Backend& backend, const EvalOptions& opt) {
  SandboxConfig config;
  config.executable = backend.sandbox_executable();
  config.scratch_root = env.scratch_root;
  config.memory_limit_bytes =
      opt.memory_limit_bytes ? opt.memory_limit_bytes : DefaultMemoryLimit();
  config.llc_bytes = opt.time && opt.flush == FlushMode::kLlc ? FlushedCacheBytes(backend) : 0;
  config.threads = opt.threads;
  config.limit_address_space = backend.traits().limit_address_space;
  config.open_files = backend.traits().open_files;
  config.seccomp = opt.seccomp;
  config.landlock = opt.landlock;
  config.netns = opt.netns;
  config.profile = opt.profile;
  // A compat config's warm sandboxes fork from one zygote on the CPU only:
  // on a GPU machine importing torch.utils.cpp_extension starts the CUDA
  // driver (a "cuda..." thread; seen on an H200 with torch 2.11), and a
  // zygote refuses to fork then (sandbox/zygote.h), so there it would only
  // cost one more sandbox's start.
  config.zygote = ZygotesEnabled() && !backend.traits().device_memory;
  backend.ConfigureSandbox(config);
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
