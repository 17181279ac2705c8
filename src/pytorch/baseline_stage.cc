#include "pytorch/baseline_stage.h"

#include <algorithm>
#include <cmath>

#include "compat/compat_sandbox.h"
#include "core/fs.h"
#include "core/trace.h"
#include "measure/stats.h"
#include "pytorch/timing_processes.h"
#include "task/reference_kind.h"
#include "verify/note_words.h"

namespace hone {
namespace {

using Millis = std::chrono::milliseconds;

// Why a baseline the user did not ask for (--baselines) is missing.
constexpr const char* kBaselineNotAsked = "not asked for (--baselines)";
// Why a task that times its reference only (Task::eager_baseline_only) has none.
constexpr const char* kBaselineNotForTask =
    "not timed: this task's speedup is against its reference as written "
    "(--baselines eager,compile times torch.compile too)";

bool NotAsked(const std::string& reason) {
  return reason == kBaselineNotAsked || reason == kBaselineNotForTask;
}

std::string BaselineName(CompatMode mode) {
  return mode == CompatMode::kCompile ? "torch.compile(Model)" : "Model";
}

// What timed a baseline's calls, for its note: `interleaved`, beside the
// candidate's (TimedBeside), else on their own behind the hold.
std::string BaselineClock(const Backend& backend, bool interleaved) {
  const bool gpu = backend.traits().held_calls;
  std::string clock = gpu ? "CUDA events on the legacy default stream" : "the sandbox's clock";
  if (gpu && !interleaved) clock += ", held";
  return clock + ", in a hone sandbox like candidates";
}

// The end of a baseline sandbox's output, for a reason it failed.
std::string OutputEnds(const SandboxProcess& sandbox) {
  const std::string& log = sandbox.log();
  return "; its output ends: " + log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
}

TimingResult BaselineResult(const BaselineTiming& b) {
  TimingResult r;
  r.samples = b.samples;
  r.summary = Summarize(b.samples);
  return r;
}

// Timed beside a compile (EvalOptions::baselines_only), a baseline whose
// calls were not held measured the host while the compile shared it.
bool HostTimedBesideABuild(const BaselineTiming& t, const EvalOptions& opt) {
  return opt.baselines_only && t.available && !t.held;
}

}  // namespace

bool RetimedBesideHostBound(const BaselineTiming& cached, const BackendTraits& backend) {
  return backend.held_calls && cached.available && !cached.held;
}

bool BaselineStage::all_cached() const {
  return std::all_of(runs_.begin(), runs_.end(),
                     [](const BaselineRun& b) { return b.beside_only; });
}

void BaselineStage::LookUp() {
  if (!s_.opt.time) return;
  OracleService& oracle = *s_.oracle;
  key_ = {s_.task.hash, oracle.device_description(), oracle.torch_version(),
          FlushModeName(s_.opt.flush)};
  if (!s_.opt.eager_baseline) {
    Baselines none;
    none.eager.reason = none.compiled.reason = kBaselineNotAsked;
    baselines_ = none;
    return;
  }
  const bool task_declines = !s_.opt.baselines_chosen && s_.task.eager_baseline_only;
  const bool compile = s_.opt.compile_baseline && !task_declines;
  if (auto dir = CacheDir(); dir.ok()) {
    baselines_ = BaselineCache(*dir / "baselines").Lookup(key_);
    // An entry timed without torch.compile serves a run that wants it only
    // when there is no torch.compile to time.
    if (baselines_ && (!compile || !NotAsked(baselines_->compiled.reason))) {
      if (RetimedBesideHostBound(baselines_->eager, s_.backend.traits())) {
        BaselineRun beside;
        beside.beside_only = true;
        runs_.push_back(std::move(beside));
      }
      return;
    }
    baselines_.reset();
  }
  Baselines pending;
  runs_.emplace_back().mode = CompatMode::kEager;
  if (!compile) {
    pending.compiled.reason = task_declines ? kBaselineNotForTask : kBaselineNotAsked;
  } else if (oracle.hello().value("compile_available", false)) {
    runs_.emplace_back().mode = CompatMode::kCompile;
  } else {
    pending.compiled.reason =
        "torch " + oracle.torch_version() + " has no torch.compile (needs 2.0 or later)";
  }
  baselines_ = pending;  // completed by TimeAll
}

Status BaselineStage::Build(BuildPool& pool) {
  for (BaselineRun& b : runs_) {
    CompatShimOptions o;
    o.mode = b.mode;
    HONE_RETURN_IF_ERROR(AddProblemFolder(s_.task, o));
    HONE_ASSIGN_OR_RETURN(std::filesystem::path shim,
                          WriteCompatShim(s_.task, s_.task.reference, *s_.compat_runtime,
                                          s_.env.scratch_root / "compat", o));
    auto built = pool.Submit(shim).get();
    if (!built.ok()) return built.status();
    if (!built->ok)
      return Status::Internal(shim.string() + ": the baseline's shim does not compile:\n" +
                              built->log);
    b.library = built->library;
  }
  return Status::Ok();
}

Status BaselineStage::SpawnIfFitBeside() {
  if (!FitBeside()) {
    if (!runs_.empty()) Trace("baselines: no room to load beside the candidate");
    return Status::Ok();
  }
  for (BaselineRun& b : runs_) HONE_RETURN_IF_ERROR(Spawn(b));
  if (!runs_.empty()) Trace("baselines: loading beside the candidate");
  return Status::Ok();
}

int64_t BaselineStage::ProcessBytes() const {
  const MemoryDemand& demand = s_.demand;
  return s_.plan.input_sets * (demand.inputs + demand.outputs) + demand.ProcessBytes();
}

bool BaselineStage::FitBeside() const {
  const MemoryPlan& plan = s_.plan;
  if (plan.free <= 0) return true;
  return plan.peak + static_cast<int64_t>(runs_.size()) * ProcessBytes() <= plan.free;
}

Status BaselineStage::SpawnSpares(int count) {
  if (count <= 0 || runs_.empty()) return Status::Ok();
  const MemoryPlan& plan = s_.plan;
  const int64_t processes = static_cast<int64_t>(runs_.size()) * (1 + count);
  if (plan.free > 0 &&
      plan.peak + processes * ProcessBytes() + count * s_.demand.ProcessBytes() > plan.free)
    return Status::Ok();
  for (BaselineRun& b : runs_) {
    if (!b.timing.reason.empty() || b.beside_only) continue;  // beside: one process
    for (int i = 0; i < count; ++i) {
      BaselineRun& spare = b.spares.emplace_back();
      spare.mode = b.mode;
      spare.library = b.library;
      HONE_RETURN_IF_ERROR(Spawn(spare));
    }
  }
  return Status::Ok();
}

Result<SandboxConfig> BaselineStage::Config(const BaselineRun& b) const {
  SandboxConfig config = BaseConfig(s_.env, s_.backend, s_.opt);
  config.library = b.library;
  HONE_RETURN_IF_ERROR(AddCompatShim(config, *s_.compat_runtime, s_.shim_options));
  // The baseline's shim reads the problem's folder (a native candidate's
  // shim_options do not name it).
  CompatShimOptions problem;
  HONE_RETURN_IF_ERROR(AddProblemFolder(s_.task, problem));
  for (const auto& dir : problem.read_dirs) config.extra_read_dirs.push_back(dir);
  return config;
}

Status BaselineStage::Spawn(BaselineRun& b) {
  if (b.sandbox) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(b.arena, s_.backend.CreateArena(s_.cand.arena_bytes));
  HONE_ASSIGN_OR_RETURN(SandboxConfig config, Config(b));
  HONE_ASSIGN_OR_RETURN(b.sandbox, launcher_.Spawn(config, *b.arena, nullptr));
  return Status::Ok();
}

void BaselineStage::Await() {
  for (BaselineRun& b : runs_) {
    AwaitOne(b);
    for (BaselineRun& spare : b.spares) AwaitOne(spare);
  }
}

void BaselineStage::AwaitOne(BaselineRun& b) {
  if (!b.sandbox || b.ready || !b.timing.reason.empty()) return;
  auto config = Config(b);
  CallOutcome o = config.ok() ? launcher_.AwaitStart(b.sandbox, *config, *b.arena,
                                                     Millis(kCompatStartMillis), nullptr)
                              : b.sandbox->AwaitReady(Millis(kCompatStartMillis));
  b.ready = o.ok();
  if (b.ready) return;
  b.timing.reason = BaselineName(b.mode) + " did not load: " + o.detail + OutputEnds(*b.sandbox);
  b.sandbox.reset();
  b.arena.reset();
}

// Short calls: the same baseline in more processes, all loaded before the
// first is timed (pytorch/timing_processes.h). A process that fails to load or
// to run only leaves its samples out, and the note says how many counted.
void BaselineStage::TimeInMoreProcesses(BaselineRun& b) {
  std::vector<BaselineRun> more = std::move(b.spares);
  b.spares.clear();
  const int processes = b.timing.available ? TimingProcesses(s_.opt, b.timing.median) : 1;
  if (processes <= 1) return;  // the spares go unused
  more.resize(static_cast<size_t>(processes - 1));
  int beside = 0;
  for (BaselineRun& m : more) {
    beside += m.sandbox && m.ready;
    if (m.sandbox || !m.timing.reason.empty()) continue;  // a spare, loaded or failed
    m.mode = b.mode;
    m.library = b.library;
    if (Status st = Spawn(m); !st.ok()) m.timing.reason = st.message();
  }
  for (BaselineRun& m : more) AwaitOne(m);
  std::vector<BaselineTiming> timed;
  for (BaselineRun& m : more) {
    if (!m.sandbox) continue;
    launcher_.Settle(s_.host_timed());
    Time(m);
    m.sandbox.reset();
    m.arena.reset();
    if (m.timing.available) timed.push_back(m.timing);
  }
  if (timed.empty()) return;
  std::vector<double> medians = {b.timing.median};
  for (const BaselineTiming& t : timed) medians.push_back(t.median);
  PoolBaselineTimings(b.timing, timed);
  b.timing.timer += "; " + TimingProcessesNote(BaselineName(b.mode), medians, b.timing.median,
                                               s_.opt.short_call_seconds);
  if (beside > 0)
    b.timing.timer += "; " + std::to_string(beside) + " of them loaded beside the candidate's";
}

BaselineStage::BaselineRun* BaselineStage::EagerRun() {
  for (BaselineRun& b : runs_)
    if (b.mode == CompatMode::kEager) return &b;
  return nullptr;
}

std::optional<BaselineStage::Beside> BaselineStage::EagerBeside() {
  BaselineRun* b = EagerRun();
  if (!b || !b->timing.reason.empty()) return std::nullopt;
  if (!b->sandbox) {
    if (!FitBeside()) return std::nullopt;
    if (Status st = Spawn(*b); !st.ok()) {
      b->timing.reason = st.message();
      return std::nullopt;
    }
  }
  AwaitOne(*b);
  if (!b->sandbox || !BindAndLoadState(*b)) return std::nullopt;
  return Beside{b->sandbox.get(), b->arena.get()};
}

void BaselineStage::TimedBeside(const TimingResult& eager) {
  BaselineRun* b = EagerRun();
  if (!b) return;
  BaselineTiming& t = b->timing;
  t.available = true;
  t.samples = eager.samples;
  t.median = eager.summary.median;
  t.held = false;
  t.timer = BaselineClock(s_.backend, true) +
            ", call by call interleaved with the candidate's: their calls are host-bound (the "
            "host's launch rate, which drifts, is timed), so the drift cancels in the ratio";
  b->sandbox.reset();
  b->arena.reset();
}

void BaselineStage::NotTimedBeside() {
  BaselineRun* b = EagerRun();
  if (!b) return;
  b->sandbox.reset();
  b->arena.reset();
  b->ready = false;
}

Status BaselineStage::TimeAll() {
  if (runs_.empty()) return Status::Ok();
  // Said while it runs: on a fresh machine this is most of a problem's first
  // evaluation, and `hone prepare` does it beforehand.
  s_.Progress("baselines (timed once per problem on this machine; hone prepare does it ahead)");
  s_.cand.arena.reset();
  for (BaselineRun& b : runs_) {
    if (b.timing.available) continue;  // timed beside the candidate (TimedBeside)
    if (b.beside_only) {               // the candidate was not host-bound: the cached time stands
      b.sandbox.reset();
      b.arena.reset();
      continue;
    }
    if (!b.sandbox && b.timing.reason.empty()) HONE_RETURN_IF_ERROR(Spawn(b));
    Await();
    Trace("baselines: " + BaselineName(b.mode) + (b.sandbox ? " loaded" : " did not load"));
    launcher_.Settle(s_.host_timed());
    if (b.sandbox) {
      Time(b);
      Trace("baselines: " + BaselineName(b.mode) + " timed");
    }
    b.sandbox.reset();
    b.arena.reset();
    TimeInMoreProcesses(b);
  }
  Baselines measured = baselines_.value_or(Baselines{});
  bool timed = false;
  for (BaselineRun& b : runs_) {
    if (b.beside_only && !b.timing.available) continue;
    (b.mode == CompatMode::kCompile ? measured.compiled : measured.eager) = b.timing;
    timed = true;
  }
  if (!timed) return Status::Ok();
  measured.cached = false;
  measured.device = key_.device;
  measured.torch_version = key_.torch_version;
  baselines_ = measured;
  if (measured.eager.available) Store(measured);
  return Status::Ok();
}

void BaselineStage::Store(const Baselines& measured) {
  if (HostTimedBesideABuild(measured.eager, s_.opt) ||
      HostTimedBesideABuild(measured.compiled, s_.opt)) {
    s_.v.AddNote(notes::BaselinesNotCachedBesideABuild());
    return;
  }
  if (auto dir = CacheDir(); dir.ok())
    if (Status st = BaselineCache(*dir / "baselines").Store(key_, measured); !st.ok())
      s_.v.AddNote(notes::BaselinesNotCached(st.message()));
}

// The candidate's timing protocol for one baseline: its buffer slots laid
// out like the candidate's, warm-up on the timing pool's sets, then
// unchecked calls on pool sets scaled by fresh factors, until precise or out
// of budget. Its outputs are not checked: the baseline is the task's own
// model, trusted like the oracle.
void BaselineStage::Time(BaselineRun& b) {
  if (!BindAndLoadState(b)) return;
  Measuring m;
  InterleavedTimer timer(1);
  timer.Run(s_.opt.timing, [&](int, int rep, bool is_timed, double* seconds) {
    return Sample(b, m, rep, is_timed, seconds);
  });
  m.fresh.Reset(*s_.store);
  if (!m.failure.empty()) {
    b.timing.reason = m.failure + OutputEnds(*b.sandbox);
    return;
  }
  if (timer.samples(0).empty()) {
    b.timing.reason = BaselineName(b.mode) + " gave no timing samples";
    return;
  }
  Conclude(b, timer, m);
}

// Loads the task's state (parameters, buffers) in one unheld call first, as
// the candidate's verification calls do: the shim loads it on its first
// call, and a ResNet-101's hundreds of copies on top of its launches would
// fill the held stream's queue and run the hold out for every later call.
// A model without state makes no such call: its first call is a held
// warm-up call, as in the candidate's extra processes. On an H100 an unheld
// first call made every later held call of that process slower
// (tasks/pytorch/softmax.py 7.7 us instead of 7.3 us, row_sum 9.2 instead of
// 8.8: docs/PERFORMANCE.md), a bias the candidate's processes do not have.
bool BaselineStage::BindAndLoadState(BaselineRun& b) {
  const std::string what = BaselineName(b.mode);
  const std::vector<SetLayout>& sets = s_.cand.sets;
  for (int s = 0; s < s_.plan.input_sets; ++s) {
    CallOutcome o = b.sandbox->Bind(static_cast<uint32_t>(s), Slots(sets[s].inputs),
                                    Slots(sets[s].outputs), s_.opt.max_call_timeout);
    if (!o.ok()) {
      b.timing.reason = what + " failed to bind: " + o.detail;
      return false;
    }
  }
  if (!KindOf(s_.task).inputs().HasState(s_.task)) return true;
  const RefSet& first = oracle_.pool()[0];
  LoadInputs(*s_.store, *b.arena, sets[0], first.inputs);
  if (Status st = b.arena->Sync(); !st.ok()) {
    b.timing.reason = what + ": " + st.message();
    return false;
  }
  CallOutcome o = b.sandbox->Call(0, 0, s_.opt.max_call_timeout, first.rng_seed);
  if (o.ok() && o.rc == 0) return true;
  b.timing.reason =
      what + " failed its first call: " + (o.ok() ? "returned " + std::to_string(o.rc) : o.detail) +
      OutputEnds(*b.sandbox);
  return false;
}

bool BaselineStage::Sample(BaselineRun& b, Measuring& m, int rep, bool is_timed, double* seconds) {
  const int set = rep % s_.plan.input_sets;
  const std::vector<RefSet>& pool = oracle_.pool();
  const RefSet& pooled = pool[static_cast<size_t>(rep) % pool.size()];
  const Ids* in = &pooled.inputs;
  uint64_t rng_seed = pooled.rng_seed;
  if (is_timed) {
    m.fresh.Reset(*s_.store);
    m.fresh.recheck = false;
    if (Status st = oracle_.PoolInputs(m.fresh, m.unpredictable); !st.ok()) {
      m.failure = st.message();
      return false;
    }
    in = &m.fresh.inputs;
    rng_seed = m.fresh.rng_seed;
  }
  const SetLayout& l = s_.cand.sets[static_cast<size_t>(set)];
  if (Status st = PrepareTimedCall(*s_.store, *b.arena, l, *in); !st.ok()) {
    m.failure = st.message();
    return false;
  }
  CallOutcome o = b.sandbox->Call(static_cast<uint32_t>(set), TimedCallFlags(s_.opt.flush),
                                  s_.opt.max_call_timeout, rng_seed);
  if (!o.ok() || o.rc != 0) {
    m.failure = BaselineName(b.mode) +
                " failed while timed: " + (o.ok() ? "returned " + std::to_string(o.rc) : o.detail);
    return false;
  }
  // A held call whose work also ran on an unheld side stream did not time all of it.
  if (s_.backend.traits().held_calls) m.hold.Count(o);
  s_.NoteHeld(o.held);
  bool partial = o.held && (o.side_launches > 0 || o.side_copies > 0);
  if (is_timed) *seconds = partial ? std::nan("") : o.reported_seconds;
  if (is_timed && !partial) {
    m.launches.push_back(o.launches);
    // Only a held call leaves its launches' host time out of its report.
    if (o.held)
      m.gaps.push_back(o.wall_seconds - o.prepare_seconds - o.reported_seconds -
                       o.post_mark_seconds);
  }
  return true;
}

void BaselineStage::Conclude(BaselineRun& b, const InterleavedTimer& timer, const Measuring& m) {
  BaselineTiming& t = b.timing;
  t.available = true;
  t.samples = timer.samples(0);
  t.median = Summarize(t.samples).median;
  t.warmup_calls = timer.warmup_calls();
  if (!m.launches.empty()) t.launches_per_call = Summarize(m.launches).median;
  // Most timed calls held: the host time per launch is measured.
  t.held = 2 * m.gaps.size() > m.launches.size();
  if (t.held && t.launches_per_call > 0)
    t.host_seconds_per_launch = std::max(0.0, Summarize(m.gaps).median) / t.launches_per_call;
  std::string held = m.hold.Describe("hold");
  t.timer = BaselineClock(s_.backend, false) + (held.empty() ? "" : " (" + held + ")");
}

void BaselineStage::Apply() {
  if (!baselines_) return;
  const Baselines& b = *baselines_;
  Verdict& v = s_.v;
  const double cand = v.timing.candidate_time->summary.median;
  v.timing.baseline = "torch eager";
  if (b.eager.available) {
    v.timing.reference_time = BaselineResult(b.eager);
    // Timed beside the candidate, the timing stage gave the paired speedup.
    if (cand > 0 && v.timing.speedup_pairs.empty())
      v.timing.speedup = v.timing.reference_time->summary.median / cand;
    if (!b.eager.timer.empty()) v.AddNote(notes::EagerBaselineTimedBy(b.eager.timer));
  } else {
    v.AddNote(notes::NoEagerBaseline(b.eager.reason));
  }
  if (b.compiled.available) {
    v.timing.compile_time = BaselineResult(b.compiled);
    if (cand > 0) v.timing.speedup_compile = v.timing.compile_time->summary.median / cand;
  } else {
    v.timing.compile_unavailable = b.compiled.reason;
  }
  const BaselineRun* eager = EagerRun();
  v.AddNote(notes::BaselinesTimed(b.cached, eager && eager->beside_only,
                                  v.timing.speedup_pairs.size(), b.device, b.torch_version));
}

const BaselineTiming* BaselineStage::eager() const {
  return baselines_ && baselines_->eager.available ? &baselines_->eager : nullptr;
}

}  // namespace hone
