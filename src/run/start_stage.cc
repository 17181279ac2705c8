#include "run/start_stage.h"

#include <algorithm>
#include <thread>

#include "compat/compat_sandbox.h"
#include "verify/note_words.h"

namespace hone {

using Millis = std::chrono::milliseconds;

Status StartStage::PlanMemoryUse() {
  const bool device = s_.backend.traits().device_memory;
  // --memory-cap: planned as if no more were free (a smaller card's need).
  const int64_t cap = s_.opt.memory_cap_bytes;
  auto free_now = [&] {
    const int64_t free = s_.backend.FreeMemory();
    return cap > 0 && (free <= 0 || free > cap) ? cap : free;
  };
  s_.demand = DemandOf(s_.task, s_.cases, device, s_.compat);
  MemoryPlan& plan = s_.plan;
  plan = PlanMemory(s_.demand, free_now(), s_.opt.input_sets);
  // Memory the oracle's allocator keeps cached, or a process of the last
  // evaluation the driver has not yet torn down, is free memory soon: ask
  // for it back and look again before giving up.
  for (int attempt = 0; !plan.fits && device && attempt < 3; ++attempt) {
    if (s_.oracle) (void)s_.oracle->ReleaseDeviceMemory();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    plan = PlanMemory(s_.demand, free_now(), s_.opt.input_sets);
  }
  if (!plan.fits)
    return Status::Unavailable(s_.task.name + " does not fit in the " +
                               (device ? "GPU's" : "machine's") + " memory" +
                               notes::MemoryCapWords(cap) + ": it " + plan.Explain());
  if (cap > 0) s_.v.AddNote(notes::MemoryPlanUnderCap(plan.peak, plan.free, cap));
  if (!plan.shrunk.empty())
    s_.v.AddNote(notes::MemoryPlanShrunk(plan.shrunk, plan.peak, plan.free));
  if (!plan.ref64) s_.v.AddNote(notes::Float64DoesNotFit());
  return Status::Ok();
}

Status StartStage::Allocate() {
  size_t cand_bytes = 0;
  for (const auto& cs : s_.cases)
    cand_bytes = std::max(
        cand_bytes, PlaceCandidateSets(s_.task, cs, s_.plan.input_sets, nullptr) + kTailGuardBytes);
  HONE_RETURN_IF_ERROR(reference_.Allocate());
  s_.cand.arena_bytes = cand_bytes;
  HONE_ASSIGN_OR_RETURN(s_.cand.arena, s_.backend.CreateArena(cand_bytes));
  HONE_ASSIGN_OR_RETURN(s_.store, s_.backend.CreateTrustedStore());
  return Status::Ok();
}

Result<SandboxConfig> StartStage::CandidateConfig(const std::filesystem::path& cand_lib) const {
  SandboxConfig config = BaseConfig(s_.env, s_.backend, s_.opt);
  config.library = cand_lib;
  if (s_.compat) HONE_RETURN_IF_ERROR(AddCompatShim(config, *s_.compat_runtime, s_.shim_options));
  if (s_.backend.traits().launch_tracking && !s_.cand.kernels.empty()) {
    std::string list;
    for (const auto& k : s_.cand.kernels) list += (list.empty() ? "" : ",") + k;
    config.extra_args = {"--kernels", list};
  }
  return config;
}

Status StartStage::Run(const std::filesystem::path& cand_lib) {
  HONE_RETURN_IF_ERROR(PlanMemoryUse());
  HONE_RETURN_IF_ERROR(Allocate());
  s_.Progress("start");
  HONE_ASSIGN_OR_RETURN(SandboxConfig config, CandidateConfig(cand_lib));
  CandidateSide& cand = s_.cand;
  // Both load at once: on a GPU each spends most of its start creating a
  // CUDA context. Spawned from this thread, which outlives them.
  HONE_RETURN_IF_ERROR(reference_.Spawn(BaseConfig(s_.env, s_.backend, s_.opt)));
  HONE_ASSIGN_OR_RETURN(cand.sandbox, launcher_.Spawn(config, *cand.arena, &s_.v.sandbox.warm));
  if (pytorch_) HONE_RETURN_IF_ERROR(pytorch_->SpawnBaselinesIfFitBeside());
  Status reference_ready = reference_.AwaitReady();
  // A compat candidate starts Python and torch and may build its extension.
  Millis timeout =
      s_.compat ? std::max(s_.opt.start_timeout, Millis(kCompatStartMillis)) : s_.opt.start_timeout;
  CallOutcome startup =
      launcher_.AwaitStart(cand.sandbox, config, *cand.arena, timeout, &s_.v.sandbox.warm);
  if (!startup.ok()) cand.sandbox.reset();
  HONE_RETURN_IF_ERROR(reference_ready);
  if (!cand.sandbox) {
    runner_.Fail(startup, "while loading the candidate");
    return Status::Ok();
  }
  s_.v.sandbox.features = cand.sandbox->features();
  s_.v.timing.event_overhead_seconds = cand.sandbox->event_overhead_seconds();
  s_.v.sandbox.missing = cand.sandbox->missing_features();
  if (s_.compat) {
    CompatEvents events = ReadCompatEvents(cand.sandbox->log());
    s_.v.sandbox.load_seconds = events.load_seconds;
    s_.v.sandbox.first_call_seconds = events.first_call_seconds;
    for (Note& note : events.notes) s_.v.AddNote(std::move(note));
    if (s_.loader) s_.loader->Loaded(cand.sandbox->scratch());
  }
  return Status::Ok();
}

Result<std::unique_ptr<SandboxProcess>> StartStage::SpawnAnother(
    const std::filesystem::path& cand_lib) {
  HONE_ASSIGN_OR_RETURN(SandboxConfig config, CandidateConfig(cand_lib));
  bool warm = false;
  return launcher_.Spawn(config, *s_.cand.arena, &warm);
}

Result<CallOutcome> StartStage::AwaitLoad(std::unique_ptr<SandboxProcess>& sandbox,
                                          const std::filesystem::path& cand_lib) {
  HONE_ASSIGN_OR_RETURN(SandboxConfig config, CandidateConfig(cand_lib));
  Millis timeout =
      s_.compat ? std::max(s_.opt.start_timeout, Millis(kCompatStartMillis)) : s_.opt.start_timeout;
  bool warm = false;
  return launcher_.AwaitStart(sandbox, config, *s_.cand.arena, timeout, &warm);
}

bool StartStage::Loaded(std::unique_ptr<SandboxProcess>& sandbox, const CallOutcome& startup) {
  if (startup.ok()) return true;
  sandbox.reset();
  runner_.Fail(startup, "while loading it again, to time it in another process");
  return false;
}

}  // namespace hone
