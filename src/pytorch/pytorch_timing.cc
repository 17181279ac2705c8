#include "pytorch/pytorch_timing.h"

#include <algorithm>

#include "pytorch/timing_processes.h"
#include "run/start_stage.h"
#include "run/timing_stage.h"
#include "verify/note_words.h"

namespace hone {

Status PyTorchTiming::SpawnSpares() {
  if (!s_.opt.time || reference_.timed()) return Status::Ok();
  const BaselineTiming* eager = baselines_.eager();
  if (!eager || !eager->available) return Status::Ok();  // none cached
  const int processes = TimingProcesses(s_.opt, eager->median);
  const MemoryPlan& plan = s_.plan;
  if (processes <= 1 ||
      (plan.free > 0 && plan.peak + (processes - 1) * s_.demand.ProcessBytes() > plan.free))
    return Status::Ok();
  // Only the candidate's processes (SpawnAnother, AwaitLoad): the
  // baselines' are BaselineStage's to start.
  StartStage start(s_, launcher_, runner_, reference_, nullptr);
  for (int i = 1; i < processes; ++i) {
    HONE_ASSIGN_OR_RETURN(auto sandbox, start.SpawnAnother(cand_lib_));
    spares_.push_back({std::move(sandbox), std::nullopt});
  }
  return Status::Ok();
}

Status PyTorchTiming::AwaitLoads(std::vector<Extra>& extras) {
  StartStage start(s_, launcher_, runner_, reference_, nullptr);
  for (Extra& e : extras) {
    if (e.startup) continue;
    HONE_ASSIGN_OR_RETURN(e.startup, start.AwaitLoad(e.sandbox, cand_lib_));
  }
  return Status::Ok();
}

Status PyTorchTiming::TimeInMoreProcesses() {
  std::vector<Extra> more = std::move(spares_);  // unused unless this candidate's calls are short
  spares_.clear();
  if (s_.decided() || !s_.v.timing.candidate_time || reference_.timed()) return Status::Ok();
  const int processes = TimingProcesses(s_.opt, s_.v.timing.candidate_time->summary.median);
  if (processes <= 1) return Status::Ok();
  StartStage start(s_, launcher_, runner_, reference_, nullptr);
  // All load at once, and all have loaded before the next is timed.
  more.resize(static_cast<size_t>(processes - 1));
  int early = 0;
  for (Extra& e : more) {
    early += e.sandbox != nullptr;
    if (e.sandbox) continue;
    HONE_ASSIGN_OR_RETURN(e.sandbox, start.SpawnAnother(cand_lib_));
  }
  // The baselines' calls are likely short too: their extra processes load
  // now, beside these, rather than in a second round after them.
  HONE_RETURN_IF_ERROR(baselines_.SpawnSpares(processes - 1));
  HONE_RETURN_IF_ERROR(AwaitLoads(more));
  if (ALoadTimedOutBesideNeighbours(more)) return Status::Ok();
  for (Extra& e : more)
    if (!start.Loaded(e.sandbox, *e.startup)) return Status::Ok();
  baselines_.Await();  // no sandbox loads while one is timed
  std::vector<TimingResult> timed = {*s_.v.timing.candidate_time};
  // One note says how timing stopped for all the processes (the first's);
  // each kind of hold any of them saw is kept.
  RunState::TimingNotes first = s_.timing_notes;
  for (Extra& e : more) {
    checks_.BeforeCall();  // the idle time of the process that goes
    s_.cand.sandbox = std::move(e.sandbox);
    launcher_.Settle(s_.host_timed());
    s_.v.timing.candidate_time.reset();  // a process whose calls were all re-checks gives none
    HONE_RETURN_IF_ERROR(TimingStage(s_, runner_, checks_, reference_).Run(s_.cases.front()));
    if (s_.decided()) return Status::Ok();
    if (s_.v.timing.candidate_time) timed.push_back(*s_.v.timing.candidate_time);
    for (const Note& held : s_.timing_notes.held)
      if (std::find(first.held.begin(), first.held.end(), held) == first.held.end())
        first.held.push_back(held);
  }
  s_.timing_notes = std::move(first);
  std::vector<double> medians;
  for (const TimingResult& t : timed) medians.push_back(t.summary.median);
  s_.v.timing.candidate_time = PoolTimings(timed);
  const double median = s_.v.timing.candidate_time->summary.median;
  s_.v.timing.call_overhead_seconds = s_.v.timing.candidate_time->call_overhead;
  if (s_.v.timing.sol_seconds > 0 && median > 0)
    s_.v.timing.sol_percent = 100 * s_.v.timing.sol_seconds / median;
  s_.v.AddNote(notes::TimedInProcesses(
      TimingProcessesNote("the candidate", medians, median, s_.opt.short_call_seconds), early));
  return Status::Ok();
}

// The start timeout is an idle GPU's: beside another process on the GPU a
// candidate that loaded and was timed once may take longer to load again
// (an H100 beside a copy loop: native softmax and relu kernels past 10 s).
// That decides nothing against it: its first process's timing stands, and a
// note says why it was not pooled. Alone, a load that times out is the
// candidate's (StartStage::Loaded).
bool PyTorchTiming::ALoadTimedOutBesideNeighbours(std::vector<Extra>& extras) {
  const bool timed_out = std::any_of(extras.begin(), extras.end(), [](const Extra& e) {
    return e.startup && e.startup->kind == CallOutcome::Kind::kTimedOut;
  });
  if (!timed_out || !checks_.sharing().Evidence().shared()) return false;
  for (Extra& e : extras) e.sandbox.reset();
  s_.v.AddNote(notes::TimedInOneProcess(extras.size() + 1, checks_.sharing().seen().Describe()));
  return true;
}

// Host-bound calls (a CPU candidate, or GPU calls that ran unheld) time the
// host's launch rate, which drifts by a third within minutes on a shared
// machine (docs/PERFORMANCE.md, "Host-bound level 3"): timed one after the
// other, a model against itself came out anywhere in 0.67-1.42. So the
// candidate is timed again with the eager Model beside it, call by call
// (DESIGN: "interleaved, so drift cancels in the ratio"), and that timing
// stands for both. Short calls are pooled over processes instead
// (TimeInMoreProcesses); a cached eager baseline is interleaved only when it
// was host-bound itself (RetimedBesideHostBound).
Status PyTorchTiming::TimeBesideTheBaseline() {
  if (s_.decided() || !s_.v.timing.candidate_time || !s_.host_bound()) return Status::Ok();
  if (TimingProcesses(s_.opt, s_.v.timing.candidate_time->summary.median) > 1) return Status::Ok();
  std::optional<BaselineStage::Beside> beside = baselines_.EagerBeside();
  if (!beside) return Status::Ok();
  const std::optional<TimingResult> timed_alone = s_.v.timing.candidate_time;
  const std::vector<Note> notes_alone = s_.v.notes;
  const RunState::TimingNotes timing_notes_alone = s_.timing_notes;
  std::unique_ptr<CallingThreadPin> pin = PinBothCallingThreads(*beside->sandbox);
  oracle_.TimeBeside(beside->sandbox, beside->arena);
  launcher_.Settle(true);
  s_.v.timing.candidate_time.reset();
  Status st = TimingStage(s_, runner_, checks_, reference_).Run(s_.cases.front());
  oracle_.StopTimingBeside();
  if (pin) NoteStrayedPin(*pin, *beside->sandbox);
  pin.reset();
  // The Model's failure, not the candidate's, or no sample on a side (every
  // call a re-check): the first timing stands, and the Model is timed apart.
  const bool model_failed = !st.ok() && !oracle_.beside_failure().empty();
  if (model_failed || (st.ok() && !s_.decided() && !s_.v.timing.reference_time)) {
    s_.v.timing.candidate_time = timed_alone;
    s_.v.notes = notes_alone;
    s_.timing_notes = timing_notes_alone;
    s_.v.timing.speedup_pairs.clear();
    if (model_failed) s_.v.AddNote(notes::ModelTimedApart(oracle_.beside_failure()));
    baselines_.NotTimedBeside();
    return Status::Ok();
  }
  HONE_RETURN_IF_ERROR(st);
  if (s_.decided()) return Status::Ok();
  // This timing's notes on how it stopped and held (s_.timing_notes) stand
  // for the first one's, which they replaced.
  baselines_.TimedBeside(*s_.v.timing.reference_time);
  return Status::Ok();
}

// A host-bound GPU call's time follows the CPU its calling thread runs on
// (compat/calling_thread_pin.h), so both sides' calling threads (each
// sandbox's main thread) share one CPU while they are timed in turn. A CPU
// candidate is left alone: its threads, made later, would inherit the one
// CPU. Null, with a note, when no pin could be made.
std::unique_ptr<CallingThreadPin> PyTorchTiming::PinBothCallingThreads(
    const SandboxProcess& model) {
  if (s_.host_timed()) return nullptr;
  Result<std::unique_ptr<CallingThreadPin>> pin =
      CallingThreadPin::Claim(s_.cand.arena ? s_.cand.arena->pci_bus_id() : std::string());
  Status st = pin.ok() ? (*pin)->Pin(s_.cand.sandbox->pid()) : pin.status();
  if (st.ok()) st = (*pin)->Pin(model.pid());
  if (!st.ok()) {
    s_.v.AddNote(notes::CallingThreadsNotPinned(st.message()));
    return nullptr;
  }
  s_.v.AddNote(notes::CallingThreadsPinned((*pin)->cpu()));
  return std::move(*pin);
}

void PyTorchTiming::NoteStrayedPin(const CallingThreadPin& pin, const SandboxProcess& model) {
  for (pid_t tid : pin.Strayed())
    s_.v.AddNote(notes::CallingThreadStrayed(tid == model.pid(), pin.cpu()));
}

}  // namespace hone
