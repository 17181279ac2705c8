#include "run/evaluator.h"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <future>
#include <random>
#include <thread>

#include "build/build_pool.h"
#include "core/fs.h"
#include "core/rng.h"
#include "measure/speedup.h"
#include "run/arena.h"
#include "run/baseline_cache.h"
#include "run/compat_candidate.h"
#include "run/compat_prebuild.h"
#include "run/memory_plan.h"
#include "run/sandbox_process.h"
#include "run/sanitize.h"
#include "run/stray_writes.h"
#include "run/trusted_store.h"
#include "run/warm_pool.h"
#include "verify/compare.h"
#include "verify/lint.h"
#include "wire/protocol.h"

namespace hone {
namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

struct Placement {
  std::string name;
  Dtype dtype;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  size_t offset = 0;
  size_t bytes = 0;
};

struct SetLayout {
  std::vector<Placement> inputs, outputs;
};

// Tensors in the worker's TrustedStore, one per input or output of a set.
using Ids = std::vector<TrustedStore::Id>;

// Drops every tensor a check kept when the check ends, whatever its outcome.
struct ClearStoreOnExit {
  TrustedStore& store;
  ~ClearStoreOnExit() { store.Clear(); }
};

// The tensors of one timed repetition: its fresh inputs and, when it is
// re-checked, both sides' outputs (whichever side ran first waits for the other).
struct FreshRep {
  int rep = -1;
  bool recheck = false;
  uint64_t rng_seed = 0;  // the pool set's (RefSet::rng_seed)
  Ids inputs, expected, actual;
  Ids borrowed;  // ids among inputs/expected that belong to the timing pool
  void Reset(TrustedStore& store) {
    for (const Ids* ids : {&inputs, &expected, &actual})
      for (auto id : *ids)
        if (std::find(borrowed.begin(), borrowed.end(), id) == borrowed.end()) store.Release(id);
    inputs.clear();
    expected.clear();
    actual.clear();
    borrowed.clear();
    rep = -1;
  }
};

// What CheckReportedTimes compares beyond the two sides' timings: medians of
// the reported flush, how much larger the candidate's line flush is, and its
// launches per call.
struct ReportedTimeBounds {
  double ref_prepare = 0, cand_prepare = 0;
  double flush_ratio = 1;
  double launches = 0;
};

// How one side's timing calls ran against the hold (CUDA): a held call's
// events leave out host launch time, an unheld one's include it, so a side
// whose hold ran out is not timed like one that kept it.
struct HoldTally {
  int calls = 0, held = 0, timed_out_at = -1;
  void Count(const CallOutcome& o) {
    if (o.hold_timed_out && timed_out_at < 0) timed_out_at = calls;
    ++calls;
    held += o.held ? 1 : 0;
  }
  // Empty when every call was held.
  std::string Describe(const std::string& who) const {
    if (held == calls) return "";
    std::string s =
        who + ": " + std::to_string(held) + " of " + std::to_string(calls) + " timing calls held";
    if (timed_out_at >= 0)
      s += "; the hold ran out in call " + std::to_string(timed_out_at) +
           " (its forward waited on the GPU: a synchronisation, or more launches than the "
           "stream's queue holds), so later calls include host launch time";
    return s;
  }
};

struct CaseShapes {
  const ShapeCase* c;
  std::vector<std::vector<int64_t>> inputs, outputs;
};

// f64 layouts widen floating tensors so the reference can run in double.
Dtype Widen(Dtype t, bool f64) { return f64 && IsFloating(t) ? HONE_F64 : t; }

// `guard` bytes follow every buffer: the candidate's arena has canaries
// there (kGuardBytes); the reference's arena has none.
size_t PlaceSet(const Task& task, const CaseShapes& cs, bool f64, size_t offset, SetLayout* out,
                size_t guard = 0) {
  auto place = [&](const std::vector<TensorDecl>& decls,
                   const std::vector<std::vector<int64_t>>& shapes, std::vector<Placement>& list) {
    for (size_t i = 0; i < decls.size(); ++i) {
      Placement p;
      p.name = decls[i].name;
      p.dtype = Widen(decls[i].dtype, f64);
      p.shape = shapes[i];
      p.numel = NumElements(p.shape);
      p.offset = offset;
      p.bytes = static_cast<size_t>(p.numel) * DtypeSize(p.dtype);
      offset += AlignArena(std::max<size_t>(p.bytes, 1)) + guard;
      list.push_back(p);
    }
  };
  place(task.inputs, cs.inputs, out->inputs);
  place(task.outputs, cs.outputs, out->outputs);
  return offset;
}

std::vector<wire::TensorSlot> Slots(const std::vector<Placement>& ps) {
  std::vector<wire::TensorSlot> out;
  for (const auto& p : ps) {
    wire::TensorSlot s{};
    s.dtype = static_cast<int32_t>(p.dtype);
    s.ndim = static_cast<int32_t>(p.shape.size());
    auto strides = ContiguousStrides(p.shape);
    for (size_t d = 0; d < p.shape.size(); ++d) {
      s.shape[d] = p.shape[d];
      s.stride[d] = strides[d];
    }
    s.offset = p.offset;
    s.bytes = p.bytes;
    out.push_back(s);
  }
  return out;
}

std::string Seconds(double s) {
  char buf[64];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// One evaluation's state. Once a verdict other than passed is reached,
// `decided_` is set and every later step returns at once.
class Run {
 public:
  Run(const EvaluatorEnv& env, const Task& task, const EvalOptions& opt, const ProgressFn& progress,
      Verdict& v)
      : env_(env),
        task_(task),
        opt_(opt),
        progress_(progress),
        v_(v),
        deadline_(Clock::now() + opt.total_timeout) {}

  void SetCompat(bool compat) { compat_ = compat; }
  void SetPrebuilder(CompatPrebuilder* prebuilder) { prebuilder_ = prebuilder; }
  // Compat sandboxes come warm from `pool` when they can; `refill`: another
  // starts warming for the next evaluation as each is taken.
  void SetWarmPool(WarmPool* pool, bool refill) {
    warm_pool_ = pool;
    refill_warm_ = refill;
  }
  void SetBackend(std::string backend) {
    backend_ = std::move(backend);
    v_.backend = backend_;
  }

  Status Execute(const std::filesystem::path& candidate);

 private:
  Status ExecuteSteps(const std::filesystem::path& candidate);
  void Progress(const std::string& s) {
    if (progress_) progress_(s);
  }
  int slow_syncs_ = 0;       // device-wide syncs after a call that took too long
  int long_post_marks_ = 0;  // compat calls whose span after the forward's end was too long
  void Decide(VerdictStatus s, std::string reason) {
    if (decided_) return;
    decided_ = true;
    v_.status = s;
    v_.reason = std::move(reason);
  }
  void FailFromOutcome(const CallOutcome& o, const std::string& during);
  void DecideFromOutcome(const CallOutcome& o, const std::string& during);
  Status Build(const std::filesystem::path& candidate, std::filesystem::path* ref_lib,
               std::filesystem::path* cand_lib);
  Status ResolveShapes();
  Status StartSandboxes(const std::filesystem::path& ref_lib,
                        const std::filesystem::path& cand_lib);
  SandboxConfig BaseSandboxConfig() const;
  // The settings of a sandbox that runs Python and torch (compat candidates
  // and baselines); needs compat_runtime_.
  Status MakeCompat(SandboxConfig& config) const;
  // From the warm pool when one fits, else a cold SandboxProcess::Spawn.
  // `*warm` (when given) says which.
  Result<std::unique_ptr<SandboxProcess>> SpawnSandbox(const SandboxConfig& config,
                                                       const Arena& arena, bool* warm);
  // sp->AwaitReady, and when a warm sandbox failed to warm, the same
  // sandbox started cold (the pool is then disabled).
  CallOutcome AwaitStart(std::unique_ptr<SandboxProcess>& sp, const SandboxConfig& config,
                         const Arena& arena, std::chrono::milliseconds timeout, bool* warm);
  // Nothing of hone's (a sandbox warming) competes with a measurement.
  void SettleBeforeTiming();
  Status BindCase(const CaseShapes& cs);
  Status VerifyCase(const CaseShapes& cs);
  // `watch`: the case's stray-write watch, armed (StrayWriteWatch).
  Status VerifyOne(const CaseShapes& cs, int seed, int dist, StrayWriteWatch& watch);
  // The candidate's arena outside buffer set `set`'s own tensors, named.
  // Every buffer of the candidate's arena, named; the offsets of set `set`'s.
  std::vector<ArenaSpan> CandidateBuffers(int set, std::vector<size_t>* offsets_of_set) const;
  std::vector<ArenaSpan> CandidateSpansToKeep(int set) const;
  // Lays out the candidate's buffer slots for `cs` (into `sets` when given)
  // with canaries around them; returns the end of the last one.
  size_t PlaceCandidateSets(const CaseShapes& cs, std::vector<SetLayout>* sets) const;
  // Writes the canary into every guard of the candidate's arena.
  Status FillGuards();
  // compute-sanitizer on the smallest case (run/sanitize.h), into
  // v_.sanitizer; memcheck errors fail the verdict.
  Status Sanitize(const std::filesystem::path& cand_lib);
  // After a call: false (and the verdict decided) when it wrote outside its outputs.
  // `calls`: how many candidate calls the watch covered (for its cost).
  bool CheckNoStrayWrites(StrayWriteWatch& watch, const std::string& where, int calls = 1);
  Status Time();

  // Generates one value set on the host and keeps it in the store.
  Result<Ids> GenerateInputs(const CaseShapes& cs, uint64_t seed, int dist);
  Result<Ids> RunReference(const Ids& inputs, int set);
  // Runs the float64 reference; empty when the reference does not support it.
  Result<Ids> RunReference64(const Ids& inputs);
  void LoadInputs(Arena& arena, const SetLayout& set, const Ids& inputs);
  void Poison(Arena& arena, const SetLayout& set, uint8_t pattern);
  Ids CaptureOutputs(Arena& arena, const SetLayout& set);
  void Release(const Ids& ids);
  // False (and the evaluation fails as an environment error) when the
  // worker's own store broke.
  bool StoreHealthy();
  // The CUDA-only checks on a candidate call: own kernels, one stream,
  // nothing left running on the device.
  bool CheckGpuCall(const CallOutcome& o, const std::string& during);
  // A compat call's span after the shim's end-of-forward mark is no longer
  // than copying the outputs takes; false (rejected) otherwise.
  bool CheckPostMark(const CallOutcome& o, int set, const std::string& during);
  bool cuda() const { return backend_ == "cuda"; }
  // A PyTorch task: the oracle is the reference; there is no reference sandbox.
  bool pytorch() const { return task_.pytorch.has_value(); }
  // A KernelBench ModelNew file, run through a generated shim (run/compat_candidate.h).
  bool compat() const { return compat_; }
  // Scans a compat candidate and builds its extensions outside the sandbox.
  Status PrebuildCompat(const std::filesystem::path& candidate);
  void LintCompat();
  // A prebuilt library where the sandbox may read it: as root the sandbox
  // runs as 'nobody', who cannot pass through the cache in root's home.
  Result<std::filesystem::path> SandboxReadable(const std::filesystem::path& library) const;
  // The inputs of (seed, dist) with their expected outputs (and, when
  // `with64`, the float64 reference's): run by the reference on buffer slot
  // `set`, or read from the oracle.
  struct RefSet {
    Ids inputs, expected, ref64;
    // The seed the oracle gave torch before the forward of `expected`; a
    // candidate's call on these inputs gets it too (wire::Request::rng_seed).
    uint64_t rng_seed = 0;
  };
  Result<RefSet> Reference(const CaseShapes& cs, uint64_t seed, int dist, int set, bool with64);
  Result<Ids> UploadAll(const std::vector<HostTensor>& tensors);
  // A PyTorch task's timed repetition: a set of the oracle's timing pool, its
  // forward arguments scaled by a fresh factor unless it is re-checked.
  Status PoolInputs(FreshRep& fresh, Rng& unpredictable);
  Status FetchPool(const CaseShapes& cs);
  // Sizes the evaluation's buffers to the memory free now (run/memory_plan.h).
  Status PlanMemoryUse();
  // Store tensors the oracle writes one value set into; false (nothing
  // allocated) when the store cannot share memory: the set then comes
  // through the oracle's files.
  bool AllocateOracleSet(const CaseShapes& cs, bool with64, RefSet* r, OracleTargets* t);
  // PyTorch tasks: the eager and torch.compile baselines. Read from the
  // cache, or timed here after the candidate in sandboxes of their own that
  // run the task's Model through the compat runner, under the same protocol
  // as candidates (run/baseline_cache.h).
  struct BaselineRun {
    CompatMode mode = CompatMode::kEager;
    std::filesystem::path library;  // its shim, built
    std::unique_ptr<Arena> arena;
    std::unique_ptr<SandboxProcess> sandbox;
    bool ready = false;
    BaselineTiming timing;  // the result, or why there is none
  };
  // Before building: the cached baselines, or the ones to time.
  void LookUpBaselines();
  Status BuildBaselines(BuildPool& pool);
  // Whether the baselines' sandboxes fit in memory beside the candidate's
  // (then they load while it is checked).
  bool BaselinesFitBeside() const;
  Status SpawnBaseline(BaselineRun& b);
  Result<SandboxConfig> BaselineConfig(const BaselineRun& b) const;
  void AwaitBaselines();
  Status TimeBaselines();
  void TimeBaseline(BaselineRun& b);
  Status SetBaselines();
  const MachineInfo& machine() const { return cuda() ? env_.gpu : env_.machine; }
  // Runs the candidate on `set`; false when the call failed (verdict decided).
  bool CallCandidate(int set, uint32_t flags, const std::string& during, CallOutcome* out,
                     uint64_t rng_seed = 0);
  // Incorrect-verdict helpers; return false when the check failed.
  bool CheckOutputs(const SetLayout& set, const Ids& actual, const Ids& expected,
                    const std::string& where, const std::string& check, bool record_pass = true);
  bool CheckInputsUnchanged(const SetLayout& set, const Ids& pristine, const std::string& where);
  Millis CandidateTimeout() const;
  // CPU time the sandbox spends between calls is work that escaped them.
  void AccountIdleCpu();
  bool CheckNoWorkAfterReturn();
  Status Lint(const std::filesystem::path& candidate);
  bool LibraryAllowed() const {
    return opt_.lint_allow.count("library") || task_.lint_allow.count("library");
  }
  bool CheckReportedTimes(const TimingResult& ref, const TimingResult& cand,
                          const ReportedTimeBounds& b);
  // A compat candidate's unreported host time beyond the native allowance,
  // judged once the eager baseline says what PyTorch's launches cost here.
  void CheckDeferredCallTime();
  // The reported_time check's outcome: recorded, and on failure the verdict.
  bool RecordCallTime(bool ok, const std::string& detail, double reported_median);
  double FlushedBytesRatio() const;

  const EvaluatorEnv& env_;
  const Task& task_;
  const EvalOptions& opt_;
  const ProgressFn& progress_;
  Verdict& v_;
  bool decided_ = false;
  Clock::time_point deadline_;     // the evaluation's total time limit
  bool limited_by_total_ = false;  // the last candidate call's timeout was the total's remainder
  Millis last_call_timeout_{0};
  uint64_t cpu_after_call_ = 0;
  Status env_failure_;  // the worker's own device failed
  uint64_t idle_cpu_nanos_ = 0;
  double candidate_call_seconds_ = 0;  // CPU backend: the candidate's calls, as reported
  uint64_t ref_workspace_bytes_ = 0;   // of the bound case
  uint64_t cand_workspace_bytes_ = 0;

  std::vector<CaseShapes> cases_;
  std::string backend_;
  std::filesystem::path reference_;  // the reference source for this backend
  std::vector<std::string> cand_kernels_;
  std::unique_ptr<Arena> ref_arena_, cand_arena_;
  std::unique_ptr<SandboxProcess> ref_, cand_;
  std::unique_ptr<TrustedStore> store_;
  std::vector<SetLayout> ref_sets_, cand_sets_;  // per input set, for the bound case
  SetLayout ref_f64_;
  bool ref64_supported_ = true;
  double ref_seconds_max_ = 0;
  double ref32_worst_err_ = 0;
  std::vector<std::string> dist_names_;
  bool compat_ = false;
  std::optional<CompatRuntime> compat_runtime_;
  WarmPool* warm_pool_ = nullptr;
  bool refill_warm_ = false;
  CompatPrebuilder* prebuilder_ = nullptr;
  std::optional<CompatPrebuild> prebuild_;  // the compat candidate's scan and extensions
  CompatShimOptions shim_options_;          // what its shim was given
  // PyTorch tasks: the timing pool's value sets, resident in the store while timing.
  std::vector<RefSet> pool_;
  uint64_t pool_seed_ = 0;
  MemoryPlan plan_;
  MemoryDemand demand_;
  size_t cand_arena_bytes_ = 0;
  std::vector<ArenaSpan> guards_;  // the canaries of the candidate's arena
  // Not 0 (a zeroing write would go unseen), nor either poison byte.
  const uint8_t canary_ = static_cast<uint8_t>(0x11 + std::random_device{}() % 0x40);

  std::optional<Baselines> baselines_;  // cached, or timed by this evaluation
  // Set by CheckReportedTimes for CheckDeferredCallTime.
  struct DeferredCallTime {
    double extra = 0, allowed = 0, launches = 0, median = 0;
    std::string detail;
  };
  std::optional<DeferredCallTime> deferred_call_time_;
  BaselineKey baseline_key_;
  std::vector<BaselineRun> baseline_runs_;
};

// A call that failed is a failed check too (named "call", its detail the
// reason), so that the verdict's check counts say so.
void Run::FailFromOutcome(const CallOutcome& o, const std::string& during) {
  bool first = !decided_;
  DecideFromOutcome(o, during);
  if (first) v_.checks.push_back({"call", during, false, v_.reason});
}

void Run::DecideFromOutcome(const CallOutcome& o, const std::string& during) {
  switch (o.kind) {
    case CallOutcome::Kind::kOk:
      Decide(VerdictStatus::kRuntimeError, "hone_forward returned " + std::to_string(o.rc) +
                                               " (nonzero means failure) " + during);
      return;
    case CallOutcome::Kind::kCrashed:
      Decide(VerdictStatus::kRuntimeError, "crashed with " + o.detail + " " + during);
      return;
    case CallOutcome::Kind::kTimedOut:
      if (limited_by_total_) {
        Decide(VerdictStatus::kTimeout, "the evaluation's total time limit of " +
                                            Seconds(opt_.total_timeout.count() / 1e3) +
                                            " ran out " + during + " (the process was killed)");
        return;
      }
      Decide(VerdictStatus::kTimeout,
             "did not return within " + Seconds(last_call_timeout_.count() / 1e3) + " " + during +
                 " (the process was killed" + (o.detail.empty() ? "" : "; " + o.detail) + ")");
      return;
    case CallOutcome::Kind::kViolation: {
      std::string hint = compat() ? CompatViolationHint(o.syscall) : "";
      Decide(VerdictStatus::kRejected, "sandbox rule broken " + during + ": " + o.detail +
                                           (hint.empty() ? "" : " (" + hint + ")"));
      return;
    }
    case CallOutcome::Kind::kSandboxError:
      Decide(VerdictStatus::kRuntimeError, o.detail + " " + during);
      return;
  }
}

// Idle OpenMP threads sleep (OMP_WAIT_POLICY=PASSIVE), so an honest
// candidate uses next to nothing between calls. Work moved to a thread that
// outlives the call uses about as much CPU as the calls would have, so the
// limit may grow with the calls' own time without letting that through; the
// allowance absorbs a loaded machine's wake-ups and thread hand-offs.
constexpr double kIdleCpuLimitMs = 5;
constexpr double kIdleCpuShareOfCalls = 0.05;
// Time the worker sees a timed call take beyond what the sandbox reports, over
// the reference's: a harness's jitter, the candidate's own host-side launch
// work (hidden from the events by the hold kernel on CUDA), and no more.
constexpr double kUnreportedFloorSeconds = 500e-6;
constexpr double kUnreportedShare = 0.5;
constexpr double kUnreportedPerLaunchSeconds = 10e-6;
// A compat candidate launches through PyTorch's dispatcher (23-65 us a
// launch under the hold on an H100 for level-3 models): up to as many
// launches as the eager Model makes may each cost what one of the Model's
// costs, with this margin, and never less than the floor: the same model's
// host time per launch differs between two processes by up to 2x (ResNet-18:
// 23.7 us in its baseline's, 46 us in its candidate's).
constexpr double kEagerLaunchMargin = 2.0;
constexpr double kEagerLaunchFloorSeconds = 30e-6;
// Timed calls whose outputs are re-checked, at the least.
constexpr int kMinTimedRechecks = 5;
Result<std::filesystem::path> CompatScratchRoot();  // defined below

// How long a compat candidate may take to load: Python, torch, load_inline.
constexpr int64_t kCompatStartMillis = 600000;
// A compat candidate's data-segment limit at the least (its build included).
constexpr size_t kCompatMemoryBytes = size_t{16} << 30;
// What may follow a compat shim's end-of-forward mark: copying the outputs
// at the measured copy bandwidth, with room for the launches and Python
// around the copies.
constexpr double kCompatShimCpuSeconds = 1e-3;
constexpr double kPostMarkCopyShare = 2.0;
// GPU event time, which includes the shim's Python between the mark and the
// copy (132 and 137 us seen on an H100 for one tiny output; the runner
// refuses tensor subclasses, so no candidate code runs after the mark).
constexpr double kPostMarkFloorSeconds = 300e-6;
// The CPU, or an unheld GPU call: Python, and a loaded machine.
constexpr double kPostMarkCpuFloorSeconds = 1000e-6;
constexpr double kPostMarkPerOutputSeconds = 50e-6;
// Over-long spans after the mark an evaluation may show before it is
// rejected: one is noise (the host preempted between forward and copy);
// work moved out of the forward is there on every call.
constexpr int kLongPostMarksToReject = 2;
// What each process with a CUDA context costs beyond its tensors: the
// context, a sandbox's L2 flush buffer, torch's handles and workspaces.
constexpr int64_t kDeviceBytesPerProcess = int64_t{1} << 30;
// A device-wide synchronisation of an idle GPU takes a few microseconds.
constexpr double kEscapedWorkFloorSeconds = 200e-6;
// Slow device syncs after a call (escaped work) an evaluation may show before
// it is rejected: one is noise (another context on the GPU, preemption).
constexpr int kSlowSyncsToReject = 2;

Millis Run::CandidateTimeout() const {
  Millis per_call = opt_.max_call_timeout;
  if (ref_seconds_max_ > 0) {
    double ms = ref_seconds_max_ * 1e3 * opt_.call_timeout_factor;
    per_call = Millis(static_cast<int64_t>(
        std::clamp<double>(ms, opt_.min_call_timeout.count(), opt_.max_call_timeout.count())));
  }
  return per_call;
}

Status Run::Lint(const std::filesystem::path& candidate) {
  if (!opt_.lint) {
    v_.notes.push_back("static lint skipped: only the run-time checks apply");
    return Status::Ok();
  }
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(candidate));
  if (compat()) {
    LintCompat();
    return Status::Ok();
  }
  LintOptions lo;
  lo.cuda = cuda();
  lo.allowed = opt_.lint_allow;
  lo.allowed.insert(task_.lint_allow.begin(), task_.lint_allow.end());
  std::vector<LintFinding> findings = LintSource(source, lo);
  if (findings.empty()) {
    std::string allowed;
    for (const auto& r : lo.allowed) allowed += (allowed.empty() ? "" : ", ") + r;
    v_.checks.push_back(
        {"lint", "source", true, allowed.empty() ? "" : "rules allowed for this run: " + allowed});
    return Status::Ok();
  }
  for (const auto& f : findings)
    v_.checks.push_back({"lint", "line " + std::to_string(f.line), false, DescribeFinding(f)});
  std::string reason = "lint: " + DescribeFinding(findings.front());
  if (findings.size() > 1)
    reason += " (and " + std::to_string(findings.size() - 1) + " more finding(s))";
  Decide(VerdictStatus::kRejected, reason);
  return Status::Ok();
}

Status Run::PrebuildCompat(const std::filesystem::path& candidate) {
  Progress("prebuild");
  if (!prebuilder_) return Status::Internal("a compat candidate needs the evaluator's prebuilder");
  HONE_ASSIGN_OR_RETURN(CompatPrebuild p, prebuilder_->Prebuild(candidate));
  prebuild_ = std::move(p);
  const CompatScan& scan = prebuild_->scan;
  if (!scan.ok) {
    Decide(VerdictStatus::kCompileError, "the ModelNew file does not parse: " + scan.error);
    return Status::Ok();
  }
  if (!scan.model_new.defined) {
    Decide(VerdictStatus::kCompileError,
           "not a KernelBench ModelNew file: it defines no ModelNew at module level");
    return Status::Ok();
  }
  cand_kernels_ = scan.kernels;
  cand_kernels_.insert(cand_kernels_.end(), scan.triton_kernels.begin(), scan.triton_kernels.end());
  for (const auto& note : prebuild_->notes) v_.notes.push_back(note);
  v_.build_cached = prebuild_->all_cached();
  v_.build_seconds = prebuild_->seconds;
  for (const auto& e : prebuild_->extensions) {
    v_.build_log +=
        e.call.call + "('" + e.call.name + "') at line " + std::to_string(e.call.line) + ": " +
        (e.ok ? (e.cached ? "built earlier (cache)" : "built by hone in " + Seconds(e.seconds))
              : "failed to build:\n" + e.log) +
        "\n";
  }
  if (const PrebuiltExtension* bad = prebuild_->fatal_failure()) {
    Decide(VerdictStatus::kCompileError,
           "the candidate does not compile: " + bad->call.call + "('" + bad->call.name +
               "') at line " + std::to_string(bad->call.line) + " failed:\n" + bad->log);
  }
  return Status::Ok();
}

// A compat candidate's static checks (on the scan): unless library calls are
// allowed, it builds code of its own (KernelBench generations that only call
// PyTorch are the classic non-answer). The C++ rules do not apply to Python;
// on a GPU the run-time launch checks do.
void Run::LintCompat() {
  const CompatScan& scan = prebuild_->scan;
  if (!scan.builds_extension && !LibraryAllowed()) {
    std::string detail =
        "launches no kernel of its own: ModelNew builds no extension (load_inline, "
        "cpp_extension.load or Triton) and only calls PyTorch; allow rule 'library' to score it";
    v_.checks.push_back({"lint", "source", false, detail});
    Decide(VerdictStatus::kRejected, "lint: " + detail);
    return;
  }
  std::string kernels;
  for (const auto& k : cand_kernels_) kernels += (kernels.empty() ? "" : ", ") + k;
  v_.checks.push_back(
      {"lint", "source", true,
       "compat candidate" + (kernels.empty() ? std::string(" (no CUDA kernel found in its source)")
                                             : "; its kernels: " + kernels)});
}

Result<std::filesystem::path> Run::SandboxReadable(const std::filesystem::path& library) const {
  if (geteuid() != 0) return library;
  HONE_ASSIGN_OR_RETURN(std::filesystem::path root, CompatScratchRoot());
  std::filesystem::path dir = root / "extensions";
  std::filesystem::path copy = dir / library.filename();
  std::error_code ec;
  if (std::filesystem::is_regular_file(copy, ec)) return copy;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::permissions(dir,
                               std::filesystem::perms::owner_all |
                                   std::filesystem::perms::group_exec |
                                   std::filesystem::perms::others_exec,
                               ec);
  std::filesystem::path tmp = dir / (library.filename().string() + ".tmp");
  std::filesystem::copy_file(library, tmp, std::filesystem::copy_options::overwrite_existing, ec);
  if (!ec)
    std::filesystem::permissions(
        tmp,
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
            std::filesystem::perms::group_read | std::filesystem::perms::others_read,
        ec);
  if (!ec) std::filesystem::rename(tmp, copy, ec);
  if (ec) return Status::Io(copy.string() + ": " + ec.message());
  return copy;
}

Status Run::Build(const std::filesystem::path& candidate, std::filesystem::path* ref_lib,
                  std::filesystem::path* cand_lib) {
  Progress("build");
  // A compat candidate's shim is plain C++ whatever the backend.
  Builder* builder = cuda() && !compat() ? env_.cuda_builder : env_.builder;
  if (!builder)
    return Status::Unavailable("the " + backend_ + " backend is not available here" +
                               (cuda() ? " (no GPU, or hone was built without CUDA)" : ""));
  BuildPool pool(*builder, 2);
  if (pytorch()) {
    reference_ = task_.reference;
  } else {
    HONE_ASSIGN_OR_RETURN(reference_, task_.ReferenceFor(backend_));
    auto ref = pool.Submit(reference_).get();
    if (!ref.ok()) return ref.status();
    if (!ref->ok)
      return Status::Invalid(reference_.string() + ": the task's reference does not compile:\n" +
                             ref->log);
    *ref_lib = ref->library;
  }
  std::filesystem::path source = candidate;
  if (compat() || !baseline_runs_.empty()) {
    HONE_ASSIGN_OR_RETURN(CompatRuntime rt,
                          CompatRuntimeFromHello(env_.oracle->hello(), env_.oracle->python_dir()));
    compat_runtime_ = std::move(rt);
  }
  if (compat()) {
    CompatShimOptions o;
    for (const auto& [key, library] : prebuild_->libraries()) {
      HONE_ASSIGN_OR_RETURN(o.prebuilt[key], SandboxReadable(library));
    }
    o.failed_builds = prebuild_->failures();
    HONE_ASSIGN_OR_RETURN(source, WriteCompatShim(task_, candidate, *compat_runtime_,
                                                  env_.scratch_root / "compat", o));
    shim_options_ = std::move(o);
  }
  HONE_RETURN_IF_ERROR(BuildBaselines(pool));
  auto cand = pool.Submit(source).get();
  if (!cand.ok()) return cand.status();
  if (compat()) {  // the build that matters was the extensions' (PrebuildCompat)
    v_.build_cached = v_.build_cached && cand->cached;
    v_.build_seconds += cand->seconds;
  } else {
    v_.build_cached = cand->cached;
    v_.build_seconds = cand->seconds;
    v_.build_log = cand->log;
    v_.build_resources = cand->resources;
    cand_kernels_ = cand->kernels;
  }
  if (!cand->ok) {
    Decide(VerdictStatus::kCompileError, "the candidate does not compile:\n" + cand->log);
    return Status::Ok();
  }
  *cand_lib = cand->library;
  return Status::Ok();
}

Status Run::ResolveShapes() {
  for (const ShapeCase* c_ptr : task_.CasesFor(backend_)) {
    const ShapeCase& c = *c_ptr;
    CaseShapes cs{&c, {}, {}};
    for (const auto& d : task_.inputs) {
      HONE_ASSIGN_OR_RETURN(auto s, ResolveShape(d, c));
      cs.inputs.push_back(std::move(s));
    }
    for (const auto& d : task_.outputs) {
      HONE_ASSIGN_OR_RETURN(auto s, ResolveShape(d, c));
      cs.outputs.push_back(std::move(s));
    }
    cases_.push_back(std::move(cs));
  }
  if (cases_.empty())
    return Status::Invalid(task_.dir.string() + ": no shape case runs on the " + backend_ +
                           " backend");
  for (int d = 0; d < task_.num_distributions; ++d) {
    if (pytorch()) {
      const auto& names = task_.pytorch->distribution_names;
      dist_names_.push_back(static_cast<size_t>(d) < names.size() ? names[d] : std::to_string(d));
      continue;
    }
    std::string name;
    for (const auto& in : task_.inputs) {
      if (!name.empty()) name += ", ";
      name += in.name + "~" + in.values[static_cast<size_t>(d) % in.values.size()].text();
    }
    dist_names_.push_back(name.empty() ? "none" : name);
  }
  return Status::Ok();
}

Status Run::PlanMemoryUse() {
  MemoryDemand d;
  for (const auto& cs : cases_) {
    MemoryDemand c;
    for (size_t i = 0; i < task_.inputs.size(); ++i) {
      int64_t b =
          NumElements(cs.inputs[i]) * static_cast<int64_t>(DtypeSize(task_.inputs[i].dtype));
      c.inputs += b;
      if (!pytorch() || static_cast<int>(i) < task_.pytorch->num_forward_args)
        c.forward_arguments += b;
    }
    for (size_t i = 0; i < task_.outputs.size(); ++i) {
      int64_t n = NumElements(cs.outputs[i]);
      c.outputs += n * static_cast<int64_t>(DtypeSize(task_.outputs[i].dtype));
      c.outputs_f64 += n * static_cast<int64_t>(DtypeSize(Widen(task_.outputs[i].dtype, true)));
    }
    if (c.inputs + c.outputs > d.inputs + d.outputs) d = c;
  }
  d.pytorch = pytorch();
  d.compat = compat();
  d.guards_per_set =
      static_cast<int64_t>((task_.inputs.size() + task_.outputs.size()) * (kGuardBytes + 255));
  d.guards_fixed = static_cast<int64_t>(kGuardBytes + kTailGuardBytes);
  if (pytorch()) {
    d.forward_peak = task_.pytorch->forward_peak_bytes;
    d.draw_peak = task_.pytorch->draw_peak_bytes;
    d.model = task_.pytorch->model_bytes;
  }
  // The worker, the candidate's sandbox and either the reference's sandbox
  // or the oracle each hold a device context (and a sandbox its flush buffer).
  d.processes = 3;
  d.per_process = cuda() ? kDeviceBytesPerProcess : 0;
  auto free_now = [&]() -> int64_t {
    return cuda() ? (env_.gpu_free_bytes ? env_.gpu_free_bytes() : 0) : AvailableHostMemory();
  };
  demand_ = d;
  plan_ = PlanMemory(d, free_now(), opt_.input_sets);
  // Memory the oracle's allocator keeps cached, or a process of the last
  // evaluation the driver has not yet torn down, is free memory soon: ask
  // for it back and look again before giving up.
  for (int attempt = 0; !plan_.fits && cuda() && attempt < 3; ++attempt) {
    if (env_.oracle) (void)env_.oracle->ReleaseDeviceMemory();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    plan_ = PlanMemory(d, free_now(), opt_.input_sets);
  }
  if (!plan_.fits)
    return Status::Unavailable(task_.name + " does not fit in the " +
                               (cuda() ? "GPU's" : "machine's") + " memory: it " + plan_.Explain());
  if (!plan_.shrunk.empty()) {
    std::string what;
    for (const auto& w : plan_.shrunk) what += (what.empty() ? "" : "; ") + w;
    v_.notes.push_back("memory plan: " + what + " (peak " + Gigabytes(plan_.peak) + " of " +
                       Gigabytes(plan_.free) + " free)");
  }
  if (!plan_.ref64)
    v_.notes.push_back(
        "precision check skipped: the float64 reference does not fit in memory beside the rest");
  return Status::Ok();
}

// The sandbox every candidate of `backend` gets under `opt`.
SandboxConfig BaseConfig(const EvaluatorEnv& env, const EvalOptions& opt, bool cuda) {
  SandboxConfig config;
  config.executable = cuda ? env.cuda_sandbox_executable : env.sandbox_executable;
  config.scratch_root = env.scratch_root;
  config.memory_limit_bytes =
      opt.memory_limit_bytes ? opt.memory_limit_bytes : DefaultMemoryLimit();
  config.llc_bytes =
      opt.time && opt.flush == FlushMode::kLlc ? (cuda ? env.gpu : env.machine).llc_bytes : 0;
  config.threads = opt.threads;
  config.limit_address_space = !cuda;
  config.seccomp = opt.seccomp;
  config.landlock = opt.landlock;
  config.netns = opt.netns;
  config.profile = opt.profile;
  return config;
}

// What a compat shim's sandbox adds to BaseConfig: Python, torch and the
// compilers load_inline may run (the prebuilt extensions' folders are the
// caller's to add).
Status AddCompat(SandboxConfig& config, const CompatRuntime& runtime) {
  config.compat = true;
  // Python, the compilers load_inline runs and torch use absolute paths
  // into the scratch folder; as root the sandbox runs as 'nobody', who
  // cannot pass through root's private home where the cache usually is.
  if (geteuid() == 0) {
    HONE_ASSIGN_OR_RETURN(config.scratch_root, CompatScratchRoot());
  }
  config.extra_read_dirs = CompatReadDirs(runtime);
  config.extra_env = CompatEnvironment(runtime);
  config.python_library = runtime.libpython;
  config.python_runner = runtime.runner;
  config.limit_address_space = false;  // torch maps gigabytes it never touches
  // load_inline's compilers run under the sandbox's limits too, and nvcc
  // compiling torch's headers needs several gigabytes.
  config.memory_limit_bytes = std::max<size_t>(config.memory_limit_bytes, kCompatMemoryBytes);
  return Status::Ok();
}

SandboxConfig Run::BaseSandboxConfig() const { return BaseConfig(env_, opt_, cuda()); }

Status Run::MakeCompat(SandboxConfig& config) const {
  HONE_RETURN_IF_ERROR(AddCompat(config, *compat_runtime_));
  for (const auto& [key, library] : shim_options_.prebuilt)
    config.extra_read_dirs.push_back(library.string());
  return Status::Ok();
}

void Run::SettleBeforeTiming() {
  if (warm_pool_) warm_pool_->Settle(Millis(kCompatStartMillis));
}

Result<std::unique_ptr<SandboxProcess>> Run::SpawnSandbox(const SandboxConfig& config,
                                                          const Arena& arena, bool* warm) {
  if (warm_pool_)
    if (auto sp = warm_pool_->Take(config, arena, refill_warm_)) {
      if (warm) *warm = true;
      return sp;
    }
  if (warm) *warm = false;
  return SandboxProcess::Spawn(config, arena);
}

CallOutcome Run::AwaitStart(std::unique_ptr<SandboxProcess>& sp, const SandboxConfig& config,
                            const Arena& arena, std::chrono::milliseconds timeout, bool* warm) {
  CallOutcome o = sp->AwaitReady(timeout);
  if (o.ok() || !sp->warm_failed()) return o;
  // It never warmed, so the candidate never ran: no verdict comes of it.
  warm_pool_->Disable("a warm sandbox failed to start Python: " + o.detail);
  auto cold = SpawnSandbox(config, arena, warm);
  if (!cold.ok()) {
    o.kind = CallOutcome::Kind::kSandboxError;
    o.detail = cold.status().message();
    return o;
  }
  sp = std::move(*cold);
  return sp->AwaitReady(timeout);
}

Status Run::StartSandboxes(const std::filesystem::path& ref_lib,
                           const std::filesystem::path& cand_lib) {
  HONE_RETURN_IF_ERROR(PlanMemoryUse());
  size_t cand_bytes = 0, ref_bytes = 0;
  for (const auto& cs : cases_) {
    SetLayout tmp;
    cand_bytes = std::max(cand_bytes, PlaceCandidateSets(cs, nullptr) + kTailGuardBytes);
    size_t off = 0;
    for (int s = 0; s < plan_.input_sets; ++s) off = PlaceSet(task_, cs, false, off, &tmp);
    off = PlaceSet(task_, cs, true, off, &tmp);
    ref_bytes = std::max(ref_bytes, off);
  }
  if (!pytorch()) {
    HONE_ASSIGN_OR_RETURN(ref_arena_, CreateArena(backend_, ref_bytes, env_.device));
  }
  cand_arena_bytes_ = cand_bytes;
  HONE_ASSIGN_OR_RETURN(cand_arena_, CreateArena(backend_, cand_bytes, env_.device));
  HONE_ASSIGN_OR_RETURN(store_, CreateTrustedStore(backend_, env_.device));

  Progress("start");
  SandboxConfig ref_config = BaseSandboxConfig(), cand_config = BaseSandboxConfig();
  ref_config.library = ref_lib;
  cand_config.library = cand_lib;
  if (compat()) HONE_RETURN_IF_ERROR(MakeCompat(cand_config));
  if (cuda() && !cand_kernels_.empty()) {
    std::string list;
    for (const auto& k : cand_kernels_) list += (list.empty() ? "" : ",") + k;
    cand_config.extra_args = {"--kernels", list};
  }
  // Both load at once: on a GPU each spends most of its start creating a
  // CUDA context. Spawned from this thread, which outlives them.
  if (!pytorch()) {
    HONE_ASSIGN_OR_RETURN(ref_, SandboxProcess::Spawn(ref_config, *ref_arena_));
  }
  HONE_ASSIGN_OR_RETURN(cand_, SpawnSandbox(cand_config, *cand_arena_, &v_.sandbox_warm));
  if (BaselinesFitBeside())
    for (BaselineRun& b : baseline_runs_) HONE_RETURN_IF_ERROR(SpawnBaseline(b));
  CallOutcome ref_startup = ref_ ? ref_->AwaitReady(opt_.start_timeout) : CallOutcome{};
  // A compat candidate starts Python and torch and may build its extension.
  CallOutcome cand_startup = AwaitStart(
      cand_, cand_config, *cand_arena_,
      compat() ? std::max(opt_.start_timeout, Millis(kCompatStartMillis)) : opt_.start_timeout,
      &v_.sandbox_warm);
  if (!ref_startup.ok()) ref_.reset();
  if (!cand_startup.ok()) cand_.reset();
  if (!ref_ && !pytorch())
    return Status::Invalid(reference_.string() +
                           ": the task's reference failed to load: " + ref_startup.detail);
  if (!cand_) {
    FailFromOutcome(cand_startup, "while loading the candidate");
    return Status::Ok();
  }
  v_.sandbox_features = cand_->features();
  v_.event_overhead_seconds = cand_->event_overhead_seconds();
  v_.sandbox_missing = cand_->missing_features();
  return Status::Ok();
}

Status Run::BindCase(const CaseShapes& cs) {
  ref_sets_.assign(static_cast<size_t>(plan_.input_sets), {});
  cand_sets_.assign(static_cast<size_t>(plan_.input_sets), {});
  ref_f64_ = {};
  size_t off = 0;
  for (int s = 0; s < plan_.input_sets; ++s) off = PlaceSet(task_, cs, false, off, &ref_sets_[s]);
  PlaceSet(task_, cs, true, off, &ref_f64_);
  PlaceCandidateSets(cs, &cand_sets_);
  HONE_RETURN_IF_ERROR(FillGuards());
  for (int s = 0; s <= plan_.input_sets && !pytorch(); ++s) {
    const SetLayout& l = s < plan_.input_sets ? ref_sets_[s] : ref_f64_;
    CallOutcome o = ref_->Bind(static_cast<uint32_t>(s), Slots(l.inputs), Slots(l.outputs),
                               opt_.max_call_timeout);
    if (!o.ok())
      return Status::Invalid(reference_.string() + ": the reference failed to bind: " + o.detail);
    ref_workspace_bytes_ = o.aux;
  }
  for (int s = 0; s < plan_.input_sets; ++s) {
    CallOutcome o = cand_->Bind(static_cast<uint32_t>(s), Slots(cand_sets_[s].inputs),
                                Slots(cand_sets_[s].outputs), opt_.max_call_timeout);
    if (!o.ok()) {
      FailFromOutcome(o, "in hone_workspace_bytes for case " + cs.c->label);
      return Status::Ok();
    }
    cand_workspace_bytes_ = o.aux;
  }
  return Status::Ok();
}

size_t Run::PlaceCandidateSets(const CaseShapes& cs, std::vector<SetLayout>* sets) const {
  size_t off = kGuardBytes;
  SetLayout tmp;
  for (int s = 0; s < plan_.input_sets; ++s)
    off = PlaceSet(task_, cs, false, off, sets ? &(*sets)[static_cast<size_t>(s)] : &tmp,
                   kGuardBytes);
  return off;
}

Status Run::FillGuards() {
  guards_ = GuardSpans(CandidateBuffers(-1, nullptr), cand_arena_->size());
  for (const ArenaSpan& g : guards_) cand_arena_->Fill(g.offset, canary_, g.bytes);
  return cand_arena_->Sync();
}

Status Run::Sanitize(const std::filesystem::path& cand_lib) {
  Verdict::Sanitizer& report = v_.sanitizer.emplace();
  auto started = Clock::now();
  auto done = [&] {
    report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return Status::Ok();
  };
  if (!cuda()) {
    report.not_run = "compute-sanitizer checks CUDA candidates; this one runs on the CPU";
    return done();
  }
  if (compat()) {
    report.not_run = "a ModelNew runs in Python; compute-sanitizer runs native .cu candidates";
    return done();
  }
  std::optional<std::filesystem::path> tool = FindComputeSanitizer();
  if (!tool) {
    report.not_run = "compute-sanitizer not found (PATH, CUDA_HOME/bin, /usr/local/cuda/bin)";
    return done();
  }
  // The smallest case: the tools slow a kernel down 10-100x.
  const CaseShapes* smallest = &cases_.front();
  auto elements = [&](const CaseShapes& cs) {
    int64_t n = 0;
    for (const auto& shape : cs.inputs) n += NumElements(shape);
    for (const auto& shape : cs.outputs) n += NumElements(shape);
    return n;
  };
  for (const auto& cs : cases_)
    if (elements(cs) < elements(*smallest)) smallest = &cs;
  report.case_label = smallest->c->label;
  HONE_RETURN_IF_ERROR(BindCase(*smallest));
  if (decided_) return done();
  ClearStoreOnExit clear{*store_};
  HONE_ASSIGN_OR_RETURN(RefSet ref, Reference(*smallest, opt_.seed * 1000003ull + 7, 0, 0, false));
  const SetLayout& set = cand_sets_[0];
  LoadInputs(*cand_arena_, set, ref.inputs);
  HONE_RETURN_IF_ERROR(cand_arena_->Sync());
  std::error_code ec;
  HONE_ASSIGN_OR_RETURN(std::filesystem::path scratch,
                        MakeTempDir(std::filesystem::temp_directory_path(ec), "hone-sanitize"));
  // The sandbox drops to 'nobody'; the tool writes its files here.
  std::filesystem::permissions(scratch, std::filesystem::perms::all, ec);
  struct RemoveOnExit {
    std::filesystem::path dir;
    ~RemoveOnExit() {
      std::error_code e;
      std::filesystem::remove_all(dir, e);
    }
  } remove{scratch};
  SanitizeJob job;
  job.compute_sanitizer = *tool;
  job.sandbox = env_.cuda_sandbox_executable;
  job.library = cand_lib;
  job.scratch = scratch;
  job.timeout = SanitizeToolTimeout();
  job.sandbox_args = ConfinementArgs(BaseSandboxConfig());
  std::vector<std::string> arena_args = cand_arena_->SandboxArgs();
  for (size_t i = 0; i + 1 < arena_args.size(); ++i)
    if (arena_args[i] == "--cuda-pci") job.pci_bus_id = arena_args[i + 1];
  auto shape_text = [](const std::vector<int64_t>& shape) {
    std::string t;
    for (size_t d = 0; d < shape.size(); ++d) t += (d ? "x" : "") + std::to_string(shape[d]);
    return t;
  };
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    const Placement& p = set.inputs[i];
    std::string bytes(p.bytes, '\0');
    cand_arena_->Read(p.offset, bytes.data(), p.bytes);
    std::filesystem::path file = scratch / ("input_" + std::to_string(i) + ".bin");
    HONE_RETURN_IF_ERROR(WriteFileAtomic(file, bytes));
    job.tensors.push_back("in:" + std::to_string(static_cast<int>(p.dtype)) + ":" +
                          shape_text(p.shape) + ":" + file.string());
  }
  for (const Placement& p : set.outputs)
    job.tensors.push_back("out:" + std::to_string(static_cast<int>(p.dtype)) + ":" +
                          shape_text(p.shape));
  Progress("sanitize " + smallest->c->label);
  report.tools = RunSanitizer(job);
  for (const auto& t : report.tools) {
    if (t.errors == 0) continue;
    std::string detail = "compute-sanitizer " + t.tool + " found " + std::to_string(t.errors) +
                         (t.errors == 1 ? " error" : " errors") +
                         (t.first.empty() ? "" : ": " + t.first);
    // memcheck's findings are wrong accesses; racecheck's and initcheck's
    // may be benign (a race between equal writes, padding never used).
    bool fatal = t.tool == "memcheck";
    v_.checks.push_back({"sanitizer_" + t.tool, smallest->c->label, !fatal, detail});
    if (fatal)
      Decide(VerdictStatus::kRuntimeError, detail + " [" + smallest->c->label + "]");
    else
      v_.notes.push_back(detail);
  }
  return done();
}

Result<Ids> Run::GenerateInputs(const CaseShapes& cs, uint64_t seed, int dist) {
  Ids out;
  for (size_t i = 0; i < task_.inputs.size(); ++i) {
    const TensorDecl& d = task_.inputs[i];
    const Distribution& dd = d.values[static_cast<size_t>(dist) % d.values.size()];
    auto spec = dd.Compile(cs.inputs[i], cs.c->symbols);
    if (!spec.ok()) {
      Release(out);
      return spec.status().With(task_.dir.string() + ": inputs[" + std::to_string(i) + "]: ");
    }
    out.push_back(store_->Generate(*spec, d.dtype, NumElements(cs.inputs[i]), seed,
                                   i * 64 + static_cast<uint64_t>(dist)));
  }
  return out;
}

void Run::LoadInputs(Arena& arena, const SetLayout& set, const Ids& inputs) {
  for (size_t i = 0; i < set.inputs.size(); ++i)
    store_->Restore(inputs[i], arena, set.inputs[i].offset, set.inputs[i].dtype);
}

void Run::Poison(Arena& arena, const SetLayout& set, uint8_t pattern) {
  for (const auto& p : set.outputs) arena.Fill(p.offset, pattern, p.bytes);
}

Ids Run::CaptureOutputs(Arena& arena, const SetLayout& set) {
  Ids out;
  for (const auto& p : set.outputs)
    out.push_back(store_->Capture(arena, p.offset, p.dtype, p.numel));
  return out;
}

void Run::Release(const Ids& ids) {
  for (auto id : ids) store_->Release(id);
}

bool Run::StoreHealthy() {
  Status st = store_->status();
  if (st.ok()) return true;
  if (env_failure_.ok()) env_failure_ = st;
  return false;
}

Result<Ids> Run::RunReference(const Ids& inputs, int set) {
  const SetLayout& l = ref_sets_[static_cast<size_t>(set)];
  LoadInputs(*ref_arena_, l, inputs);
  Poison(*ref_arena_, l, 0xFF);
  HONE_RETURN_IF_ERROR(store_->status());
  HONE_RETURN_IF_ERROR(ref_arena_->Sync());
  CallOutcome o = ref_->Call(static_cast<uint32_t>(set), 0, opt_.max_call_timeout);
  if (!o.ok() || o.rc != 0)
    return Status::Invalid(reference_.string() + ": the task's reference failed: " +
                           (o.ok() ? "returned " + std::to_string(o.rc) : o.detail));
  ref_seconds_max_ = std::max(ref_seconds_max_, o.reported_seconds);
  v_.kernel_seconds += o.reported_seconds;
  return CaptureOutputs(*ref_arena_, l);
}

Result<Ids> Run::RunReference64(const Ids& inputs) {
  if (!ref64_supported_) return Ids{};
  LoadInputs(*ref_arena_, ref_f64_, inputs);
  Poison(*ref_arena_, ref_f64_, 0xFF);
  uint32_t binding = static_cast<uint32_t>(plan_.input_sets);
  HONE_RETURN_IF_ERROR(store_->status());
  HONE_RETURN_IF_ERROR(ref_arena_->Sync());
  CallOutcome o = ref_->Call(binding, 0, opt_.max_call_timeout);
  if (!o.ok())
    return Status::Invalid(reference_.string() +
                           ": the task's reference failed in float64: " + o.detail);
  if (o.rc != 0) {
    ref64_supported_ = false;
    v_.notes.push_back("precision check skipped: the reference returned " + std::to_string(o.rc) +
                       " for float64 inputs");
    return Ids{};
  }
  v_.kernel_seconds += o.reported_seconds;
  return CaptureOutputs(*ref_arena_, ref_f64_);
}

Result<Ids> Run::UploadAll(const std::vector<HostTensor>& tensors) {
  Ids out;
  for (const auto& t : tensors) {
    size_t n = t.data.size() / DtypeSize(t.dtype);
    out.push_back(store_->Upload(t.data.data(), t.dtype, static_cast<int64_t>(n)));
  }
  HONE_RETURN_IF_ERROR(store_->status());
  return out;
}

Result<Run::RefSet> Run::Reference(const CaseShapes& cs, uint64_t seed, int dist, int set,
                                   bool with64) {
  RefSet r;
  if (!pytorch()) {
    HONE_ASSIGN_OR_RETURN(r.inputs, GenerateInputs(cs, seed, dist));
    HONE_ASSIGN_OR_RETURN(r.expected, RunReference(r.inputs, set));
    if (with64) {
      HONE_ASSIGN_OR_RETURN(r.ref64, RunReference64(r.inputs));
    }
    return r;
  }
  with64 = with64 && plan_.ref64 && ref64_supported_;
  // The memory plan counts the oracle's forward and the store's captures as
  // taking turns; memory the store keeps cached from its captures would
  // otherwise sit beside the oracle's forward (run/memory_plan.h).
  store_->ReleaseCached();
  const auto oracle_seed = static_cast<int64_t>(seed & (~0ull >> 1));
  r.rng_seed = static_cast<uint64_t>(oracle_seed);
  OracleSet o;
  OracleTargets targets;
  if (AllocateOracleSet(cs, with64, &r, &targets)) {
    HONE_ASSIGN_OR_RETURN(o, env_.oracle->GenerateInto(task_, oracle_seed, dist, targets));
    HONE_RETURN_IF_ERROR(store_->status());
  } else {
    HONE_ASSIGN_OR_RETURN(o, env_.oracle->Set(task_, oracle_seed, dist));
    HONE_ASSIGN_OR_RETURN(r.inputs, UploadAll(o.inputs));
    HONE_ASSIGN_OR_RETURN(r.expected, UploadAll(o.outputs));
    if (with64 && o.ref64_available) {
      HONE_ASSIGN_OR_RETURN(r.ref64, UploadAll(o.ref64));
    }
  }
  if (with64 && !o.ref64_available) {
    Release(r.ref64);
    r.ref64.clear();
    ref64_supported_ = false;
    v_.notes.push_back("precision check skipped: the model did not run in float64 (" +
                       o.ref64_reason + ")");
  }
  return r;
}

bool Run::AllocateOracleSet(const CaseShapes& cs, bool with64, RefSet* r, OracleTargets* t) {
  auto add = [&](Dtype dt, const std::vector<int64_t>& shape, Ids& ids,
                 std::vector<OracleTarget>& list) {
    const int64_t n = NumElements(shape);
    std::string ipc;
    std::optional<TrustedStore::Id> id = store_->AllocateShared(dt, n, &ipc);
    if (!id) return false;
    ids.push_back(*id);
    list.push_back({ipc, n * static_cast<int64_t>(DtypeSize(dt))});
    return true;
  };
  for (size_t i = 0; i < task_.inputs.size(); ++i)
    if (!add(task_.inputs[i].dtype, cs.inputs[i], r->inputs, t->inputs)) return false;
  for (size_t i = 0; i < task_.outputs.size(); ++i) {
    add(task_.outputs[i].dtype, cs.outputs[i], r->expected, t->outputs);
    if (with64) add(Widen(task_.outputs[i].dtype, true), cs.outputs[i], r->ref64, t->ref64);
  }
  return true;
}

// The timing pool's seeds: drawn once per process, so the oracle's sets are
// reused by every candidate while no candidate can know them in advance.
uint64_t TimingPoolSeed() {
  static const uint64_t seed = [] {
    std::random_device rd;
    return (uint64_t{1} << 40) + ((static_cast<uint64_t>(rd()) << 8) ^ rd());
  }();
  return seed;
}

// Where compat sandboxes get their scratch folders when hone runs as root: a
// fresh root-owned folder per process (unpredictable, so no one can plant
// it), which 'nobody' may pass through but not list.
Result<std::filesystem::path> CompatScratchRoot() {
  static Result<std::filesystem::path> root = []() -> Result<std::filesystem::path> {
    std::error_code ec;
    HONE_ASSIGN_OR_RETURN(std::filesystem::path dir,
                          MakeTempDir(std::filesystem::temp_directory_path(ec), "hone-compat"));
    std::filesystem::permissions(dir,
                                 std::filesystem::perms::owner_all |
                                     std::filesystem::perms::group_exec |
                                     std::filesystem::perms::others_exec,
                                 ec);
    if (ec) return Status::Io(dir.string() + ": " + ec.message());
    return dir;
  }();
  return root;
}

// Made before the timer starts, so the oracle's work never falls inside it.
// Odd pool sets come from the task's own "scaled" distribution, even ones
// from get_inputs().
Status Run::FetchPool(const CaseShapes& cs) {
  const auto& names = task_.pytorch->distribution_names;
  const int scaled_dist =
      static_cast<int>(std::find(names.begin(), names.end(), "scaled") - names.begin());
  for (int k = static_cast<int>(pool_.size()); k < plan_.pool_sets; ++k) {
    int dist = k % 2 == 1 && scaled_dist < static_cast<int>(names.size()) ? scaled_dist : 0;
    HONE_ASSIGN_OR_RETURN(RefSet r, Reference(cs, pool_seed_ + static_cast<uint64_t>(k), dist, 0,
                                              /*with64=*/false));
    pool_.push_back(std::move(r));
  }
  return Status::Ok();
}

Status Run::PoolInputs(FreshRep& fresh, Rng& unpredictable) {
  // A re-checked call takes any pool set as it is; an unchecked one an even
  // set times a fresh factor in [0.5, 2]. So the values a call sees (their
  // scale, say) never tell it whether it is checked: a candidate that skips
  // work when the inputs look unlike get_inputs() meets checked calls that
  // look the same.
  const bool scale = !fresh.recheck && task_.pytorch->scaling_allowed;
  int k = static_cast<int>(unpredictable.NextU64() % pool_.size());
  if (scale) k &= ~1;
  const RefSet& set = pool_.at(static_cast<size_t>(k));
  fresh.rng_seed = set.rng_seed;
  fresh.inputs = set.inputs;
  fresh.borrowed = set.inputs;
  if (fresh.recheck) {
    fresh.expected = set.expected;
    fresh.borrowed.insert(fresh.borrowed.end(), set.expected.begin(), set.expected.end());
  }
  if (!scale) return Status::Ok();
  const auto& info = *task_.pytorch;
  for (int i = 0; i < info.num_forward_args; ++i) {
    if (!IsFloating(task_.inputs[i].dtype) || !info.python_types[i].empty()) continue;
    // Log-uniform in [0.5, 2]: keeps zeros, signs and structure.
    fresh.inputs[i] = store_->Scaled(set.inputs[i], std::exp2(2 * unpredictable.Uniform() - 1));
  }
  return store_->status();
}

bool Run::CallCandidate(int set, uint32_t flags, const std::string& during, CallOutcome* out,
                        uint64_t rng_seed) {
  AccountIdleCpu();
  Millis per_call = CandidateTimeout();
  Millis left = std::max(Millis(1), std::chrono::duration_cast<Millis>(deadline_ - Clock::now()));
  limited_by_total_ = left < per_call;
  last_call_timeout_ = std::min(per_call, left);
  if (Status st = cand_arena_->Sync(); !st.ok()) {
    env_failure_ = st;
    return false;
  }
  if (!StoreHealthy()) return false;
  *out = cand_->Call(static_cast<uint32_t>(set), flags, last_call_timeout_, rng_seed);
  if (compat() && out->ok() && out->rc == kCompatLoadFailed) {
    const std::string& log = cand_->log();
    Decide(VerdictStatus::kCompileError,
           "the ModelNew file failed to load (its extension build or ModelNew's constructor); "
           "its output ends:\n" +
               log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
    return false;
  }
  if (!out->ok() || out->rc != 0) {
    FailFromOutcome(*out, during);
    return false;
  }
  // The sandbox reports its own time; it cannot exceed what the worker saw.
  if (out->reported_seconds + out->prepare_seconds + out->post_mark_seconds >
      out->wall_seconds * 1.01 + 1e-4) {
    Decide(VerdictStatus::kRejected,
           "timing tampered with: the sandbox reported " + Seconds(out->reported_seconds) +
               " for a call the worker saw take " + Seconds(out->wall_seconds) + " " + during);
    return false;
  }
  v_.kernel_seconds += out->reported_seconds;
  if (compat() && out->marked && !CheckPostMark(*out, set, during)) return false;
  if (cuda()) return CheckGpuCall(*out, during);
  candidate_call_seconds_ += out->reported_seconds;
  cpu_after_call_ = cand_->SettledCpuNanos();
  return true;
}

bool Run::CheckGpuCall(const CallOutcome& o, const std::string& during) {
  if (v_.kernels_launched.empty()) v_.kernels_launched = o.detail;
  if (!(v_.sandbox_features & wire::kFeatureLaunchTracking)) return true;  // reported as missing
  if (o.own_launches == 0 && !LibraryAllowed()) {
    std::string why;  // a compat file whose build failed and fell back to PyTorch says so
    for (const auto& note : compat() ? CompatEventNotes(cand_->log()) : std::vector<std::string>{})
      if (note.find("failed") != std::string::npos) why += "; " + note;
    Decide(VerdictStatus::kRejected,
           "launched no kernel of its own " + during + " (" + std::to_string(o.launches) +
               " launch(es) seen" + (o.detail.empty() ? "" : ": " + o.detail) +
               "): the work must be done by the candidate's kernels, not by a library or the host" +
               why);
    return false;
  }
  // Kernels the candidate's module does not define come from a library (or
  // from a graph, whose kernels CUPTI does not name): the work is not its own.
  uint32_t foreign = o.launches > o.own_launches ? o.launches - o.own_launches : 0;
  // KernelBench lets a ModelNew mix its kernels with PyTorch's.
  if (foreign > 0 && !LibraryAllowed() && !compat()) {
    Decide(VerdictStatus::kRejected,
           std::to_string(foreign) + " launch(es) of kernels the candidate does not define " +
               during + " (" + std::to_string(o.own_launches) + " of its own" +
               (o.detail.empty() ? "" : "; seen: " + o.detail) +
               "): library kernels may not do the work unless the task allows rule 'library'");
    return false;
  }
  // A compat candidate may use side streams, as PyTorch code does, when it
  // joins their work back to the timed stream before it returns.
  if (compat() && o.aux > 0) {
    Decide(VerdictStatus::kRejected,
           std::to_string(o.aux) +
               " side stream(s) with work never joined back to the stream hone times " + during +
               ": a non-blocking stream's work must be waited for (torch.cuda.current_stream()"
               ".wait_stream(s), an event wait or a synchronisation) before forward returns, or "
               "it escapes the timed region");
    return false;
  }
  if (o.side_launches > 0 && !compat()) {
    Decide(VerdictStatus::kRejected, std::to_string(o.side_launches) +
                                         " kernel launch(es) on a stream other than "
                                         "args->stream " +
                                         during + ": all work must be on the stream hone times");
    return false;
  }
  if (o.side_copies > 0 && !compat()) {
    Decide(VerdictStatus::kRejected,
           std::to_string(o.side_copies) +
               " memory copy or memset call(s) on a stream other than args->stream " + during +
               (o.first_side_copy.empty() ? "" : " (the first: " + o.first_side_copy + ")") +
               ": copies must be queued on args->stream with the *Async calls, so they are "
               "ordered with the kernels and timed with them");
    return false;
  }
  // An idle device synchronises in microseconds; work still running after
  // the stream finished escaped the measurement. Two things make an honest
  // call's sync slow now and then (seen on an H100, 1 in about 30
  // evaluations, 280 and 430 us): the sandbox's thread preempted during the
  // sync (its wall time then includes time off the CPU, so its CPU time,
  // spent spinning on the GPU, is the measure), and another process's
  // context holding the GPU (a sandbox killed a moment before). Escaped
  // work that pays happens on every call, so one slow sync is a note and
  // the second one in an evaluation rejects.
  double limit = kEscapedWorkFloorSeconds + 0.05 * o.reported_seconds;
  double waited = o.device_sync_preempted
                      ? std::min(o.device_sync_seconds, o.device_sync_cpu_seconds)
                      : o.device_sync_seconds;
  if (waited <= limit) return true;
  std::string took =
      "a device-wide synchronisation took " + Seconds(o.device_sync_seconds) +
      (o.device_sync_preempted ? " (" + Seconds(o.device_sync_cpu_seconds) + " of it on the CPU)"
                               : std::string());
  if (++slow_syncs_ < kSlowSyncsToReject) {
    v_.notes.push_back("once " + during + ", " + took +
                       " after args->stream finished; an idle device takes microseconds (a "
                       "second time would reject the candidate)");
    return true;
  }
  Decide(VerdictStatus::kRejected,
         "work was still running on the GPU after args->stream finished " + during + " (" + took +
             "; slow sync " + std::to_string(slow_syncs_) + " of this evaluation" +
             "): it escaped the timed stream");
  return false;
}

bool Run::CheckPostMark(const CallOutcome& o, int set, const std::string& during) {
  // After its mark the shim only copies the model's results into hone's
  // outputs: a copy's time, give or take the launches and Python around it.
  double bytes = 0;
  for (const auto& p : cand_sets_[static_cast<size_t>(set)].outputs)
    bytes += static_cast<double>(p.bytes);
  const double bandwidth = machine().copy_bandwidth_gbs * 1e9;
  const double copy = bandwidth > 0 ? 2 * bytes / bandwidth : 0;
  // Unheld (side streams), the GPU waits for the host's Python between the
  // mark and the copy, and the events measure that wait too.
  const double floor = cuda() && o.held ? kPostMarkFloorSeconds : kPostMarkCpuFloorSeconds;
  const double allowed = kPostMarkCopyShare * copy + floor +
                         kPostMarkPerOutputSeconds * static_cast<double>(task_.outputs.size());
  if (o.post_mark_seconds <= allowed) return true;
  std::string took = Seconds(o.post_mark_seconds) +
                     " passed after the end of the model's forward was marked, where copying its " +
                     Gigabytes(static_cast<int64_t>(bytes)) + " of outputs takes about " +
                     Seconds(copy) + " (allowed " + Seconds(allowed) + ")";
  if (++long_post_marks_ < kLongPostMarksToReject) {
    v_.notes.push_back("once " + during + ", " + took + "; a second time would reject it");
    return true;
  }
  Decide(VerdictStatus::kRejected,
         "work was moved out of the timed forward " + during + ": " + took);
  return false;
}

void Run::AccountIdleCpu() {
  if (cpu_after_call_ == 0) return;
  uint64_t now = cand_->CpuNanos();
  if (now > cpu_after_call_) idle_cpu_nanos_ += now - cpu_after_call_;
  cpu_after_call_ = 0;
}

bool Run::CheckNoWorkAfterReturn() {
  // On CUDA the runtime's own threads may work between calls; escaped GPU
  // work is caught per call by the device-wide synchronisation instead.
  if (cuda()) return true;
  // One quiet pause at the end, so work left running has time to show.
  if (cpu_after_call_ != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  AccountIdleCpu();
  double ms = static_cast<double>(idle_cpu_nanos_) * 1e-6;
  double limit_ms = std::max(kIdleCpuLimitMs, kIdleCpuShareOfCalls * candidate_call_seconds_ * 1e3);
  // A thread still runnable after the pause is working, whether or not a
  // loaded machine has given it much CPU yet.
  if (int runnable = cand_->RunnableThreads(); runnable > 0) {
    std::string detail = "work continued after hone_forward returned: " + std::to_string(runnable) +
                         " thread(s) still running while the "
                         "candidate was idle";
    v_.checks.push_back({"no_work_after_return", "all calls", false, detail});
    Decide(VerdictStatus::kRejected, detail);
    return false;
  }
  if (ms <= limit_ms) {
    v_.checks.push_back({"no_work_after_return", "all calls", true,
                         Num(ms) + " ms of CPU time used while the candidate was idle"});
    return true;
  }
  std::string detail = "work continued after hone_forward returned: the sandbox used " + Num(ms) +
                       " ms of CPU time between calls, over the " + Num(limit_ms) +
                       " ms allowed (a thread left running?)";
  v_.checks.push_back({"no_work_after_return", "all calls", false, detail});
  Decide(VerdictStatus::kRejected, detail);
  return false;
}

bool Run::CheckOutputs(const SetLayout& set, const Ids& actual, const Ids& expected,
                       const std::string& where, const std::string& check, bool record_pass) {
  for (size_t i = 0; i < actual.size(); ++i) {
    const TensorDecl& d = task_.outputs[i];
    Tolerance tol = task_.ToleranceFor(d.dtype);
    Mismatch m = store_->Compare(actual[i], expected[i], tol);
    if (!StoreHealthy()) return false;
    if (m.ok) continue;
    const auto& shape = set.outputs[i].shape;
    std::string detail = "output '" + d.name + "' " + ShapeString(shape) + ": " +
                         std::to_string(m.num_bad) + " of " + std::to_string(m.checked) +
                         " elements wrong; first at " + IndexString(m.first_bad, shape) +
                         ": expected " + Num(m.expected_at_first) + ", got " +
                         Num(m.actual_at_first) + "; among finite elements max abs error " +
                         Num(m.max_abs_err) + ", max rel error " + Num(m.max_rel_err) + " (atol " +
                         Num(tol.atol) + ", rtol " + Num(tol.rtol) + ")";
    if (m.nan_or_inf > 0)
      detail += "; " + std::to_string(m.nan_or_inf) +
                " NaN/Inf where the reference is finite (unwritten outputs are poisoned with NaN)";
    v_.checks.push_back({check, where, false, detail});
    Decide(VerdictStatus::kIncorrect, detail + " [" + where + "]");
    return false;
  }
  if (record_pass) v_.checks.push_back({check, where, true, ""});
  return true;
}

bool Run::CheckInputsUnchanged(const SetLayout& set, const Ids& pristine,
                               const std::string& where) {
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    const Placement& p = set.inputs[i];
    int64_t first = -1;
    int64_t n = store_->CountDifferentInArena(pristine[i], *cand_arena_, p.offset, &first);
    if (!StoreHealthy()) return false;
    if (n == 0) continue;
    std::string detail = "input '" + p.name + "' was modified: " + std::to_string(n) + " of " +
                         std::to_string(p.numel) + " elements changed, first at " +
                         IndexString(first, p.shape) + " (inputs are read-only)";
    v_.checks.push_back({"inputs_unchanged", where, false, detail});
    Decide(VerdictStatus::kIncorrect, detail + " [" + where + "]");
    return false;
  }
  return true;
}

std::vector<ArenaSpan> Run::CandidateBuffers(int set, std::vector<size_t>* offsets_of_set) const {
  std::vector<ArenaSpan> buffers;
  for (size_t s = 0; s < cand_sets_.size(); ++s)
    for (const auto& [kind, list] :
         {std::pair{"input", &cand_sets_[s].inputs}, std::pair{"output", &cand_sets_[s].outputs}})
      for (const Placement& p : *list) {
        buffers.push_back(
            {p.offset, p.bytes,
             std::string(kind) + " '" + p.name + "' of buffer set " + std::to_string(s)});
        if (offsets_of_set && static_cast<int>(s) == set) offsets_of_set->push_back(p.offset);
      }
  return buffers;
}

std::vector<ArenaSpan> Run::CandidateSpansToKeep(int set) const {
  std::vector<size_t> exempt;
  std::vector<ArenaSpan> buffers = CandidateBuffers(set, &exempt);
  return SpansToKeep(std::move(buffers), exempt, cand_arena_->size());
}

bool Run::CheckNoStrayWrites(StrayWriteWatch& watch, const std::string& where, int calls) {
  std::optional<ArenaSpan> hit = watch.After();
  v_.guard.calls += calls;
  v_.guard.seconds += watch.TakeSeconds();
  v_.guard.bytes = std::max(v_.guard.bytes, static_cast<uint64_t>(watch.watched_bytes()));
  if (!hit) return true;
  std::string detail = "wrote outside its output buffers: " + hit->name + " (" +
                       std::to_string(hit->bytes) + " bytes hone watches) changed " +
                       (calls > 1 ? "over " + std::to_string(calls) + " calls" : "during the call");
  v_.checks.push_back({"no_stray_writes", where, false, detail});
  Decide(VerdictStatus::kRuntimeError, detail + " [" + where + "]");
  return false;
}

Status Run::VerifyOne(const CaseShapes& cs, int seed, int dist, StrayWriteWatch& watch) {
  uint64_t s = opt_.seed * 1000003ull + static_cast<uint64_t>(seed);
  std::string where = cs.c->label + " seed=" + std::to_string(s) + " dist=" + dist_names_[dist];
  ClearStoreOnExit clear{*store_};
  HONE_ASSIGN_OR_RETURN(RefSet ref, Reference(cs, s, dist, 0, true));
  const Ids& inputs = ref.inputs;
  const Ids& expected = ref.expected;
  const Ids& ref64 = ref.ref64;

  const uint8_t kPoison[2] = {0xFF, 0x5A};  // NaN for every float type; then a finite sentinel
  const SetLayout& set = cand_sets_[0];
  Ids first_run;
  for (int run = 0; run < 2; ++run) {
    LoadInputs(*cand_arena_, set, inputs);
    Poison(*cand_arena_, set, kPoison[run]);
    CallOutcome o;
    std::string during = "in case " + where + (run ? " (second run)" : "");
    if (!CallCandidate(0, 0, during, &o, ref.rng_seed)) return Status::Ok();
    if (!CheckNoStrayWrites(watch, where)) return Status::Ok();
    Ids actual = CaptureOutputs(*cand_arena_, set);
    if (!CheckInputsUnchanged(set, inputs, where)) return Status::Ok();
    if (!CheckOutputs(set, actual, expected, where, run ? "correct_second_run" : "correct"))
      return Status::Ok();
    if (run == 0) {
      first_run = std::move(actual);
      continue;
    }
    for (size_t i = 0; i < actual.size(); ++i) {
      int64_t first;
      if (store_->CountDifferent(actual[i], first_run[i], &first) == 0) continue;
      v_.checks.push_back(
          {"deterministic", where, true,
           "output '" + task_.outputs[i].name +
               "' differs bitwise between two runs on the same inputs (both within tolerance)"});
    }
  }
  if (ref64.empty() || !StoreHealthy()) return Status::Ok();
  for (size_t i = 0; i < task_.outputs.size(); ++i) {
    Dtype t = task_.outputs[i].dtype;
    if (!IsFloating(t)) continue;
    double ref_err = store_->RelativeL2(expected[i], ref64[i]);
    double cand_err = store_->RelativeL2(first_run[i], ref64[i]);
    if (!StoreHealthy()) return Status::Ok();
    double bound = std::max(task_.ToleranceFor(t).precision, 8 * ref_err);
    ref32_worst_err_ = std::max(ref32_worst_err_, ref_err);
    v_.precision_error = std::max(v_.precision_error, cand_err);
    v_.precision_bound = std::max(v_.precision_bound, bound);
    if (cand_err > bound) {
      std::string detail = "output '" + task_.outputs[i].name + "': relative L2 error " +
                           Num(cand_err) + " against a float64 reference exceeds " + Num(bound) +
                           " (the task's reference has " + Num(ref_err) +
                           "); the candidate computes in lower precision than " +
                           std::string(DtypeName(t));
      v_.checks.push_back({"precision", where, false, detail});
      Decide(VerdictStatus::kIncorrect, detail + " [" + where + "]");
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status Run::VerifyCase(const CaseShapes& cs) {
  HONE_RETURN_IF_ERROR(BindCase(cs));
  // One watch for the case's calls: between them the worker writes only set
  // 0's buffers, which it does not watch, so each call's "after" is the
  // next one's "before".
  StrayWriteWatch watch(*cand_arena_, CandidateSpansToKeep(0));
  watch.Before();
  for (int seed = 1; seed <= task_.seeds && !decided_; ++seed)
    for (int dist = 0; dist < task_.num_distributions && !decided_; ++dist) {
      Progress("verify " + cs.c->label);
      HONE_RETURN_IF_ERROR(VerifyOne(cs, seed, dist, watch));
    }
  return Status::Ok();
}

Status Run::Time() {
  const CaseShapes& cs = cases_.front();
  v_.timed_case = cs.c->label;
  v_.flush_mode = FlushModeName(opt_.flush);
  Progress("time " + cs.c->label);
  HONE_RETURN_IF_ERROR(BindCase(cs));
  if (decided_) return Status::Ok();
  // The store is cleared, and the pool forgotten, by ExecuteSteps once the
  // baselines have used the pool too.
  // Warm-up calls use value sets prepared here, each with its expected
  // output: a native task's reference makes one more value set than buffer
  // slots (the values at any one address keep changing, so an output cached
  // by pointer is stale); a PyTorch task's are the timing pool's.
  const int sets = plan_.input_sets;
  std::vector<Ids> inputs, expected;
  std::vector<uint64_t> rng_seeds;
  pool_seed_ = TimingPoolSeed();
  if (pytorch()) {
    pool_.clear();
    HONE_RETURN_IF_ERROR(FetchPool(cs));
    for (const RefSet& r : pool_) {
      inputs.push_back(r.inputs);
      expected.push_back(r.expected);
      rng_seeds.push_back(r.rng_seed);
    }
  } else {
    for (int k = 0; k < sets + 1; ++k) {
      HONE_ASSIGN_OR_RETURN(
          RefSet r, Reference(cs, opt_.seed * 1000003ull + 1000 + static_cast<uint64_t>(k), 0,
                              k % sets, false));
      inputs.push_back(std::move(r.inputs));
      expected.push_back(std::move(r.expected));
    }
  }
  const int values = static_cast<int>(inputs.size());
  // A PyTorch task has one side, the candidate; its baselines come from the oracle.
  const int cand_side = pytorch() ? 0 : 1;
  auto is_ref = [&](int side) { return side != cand_side; };
  uint32_t flags = wire::kTimed;
  if (opt_.flush == FlushMode::kLlc) flags |= wire::kFlushLlc;
  if (opt_.flush == FlushMode::kLines) flags |= wire::kFlushLines;
  // Side 0 is the reference, side 1 the candidate (a PyTorch task: side 0).
  std::vector<double> gaps[2], prepares[2], launches;
  Status failure;
  int rechecked = 0, rechecked_timed = 0;
  std::vector<DeviceSample> gpu_samples;
  bool force_recheck = false;
  // Timed repetitions get fresh inputs drawn from a seed the candidate cannot
  // know, shared by both sides: no cache, memorised output or replay can
  // hit, and the reference's outputs on the same inputs are the expected
  // values. Which ones are re-checked is drawn the same way, so a kernel
  // that only computes when watched cannot find the pattern.
  Rng unpredictable(std::random_device{}(), std::random_device{}());
  const uint64_t fresh_seed = unpredictable.NextU64();
  FreshRep fresh;
  bool side_streams_noted = false;
  HoldTally hold;
  // Every call below writes only its own slot's outputs; the canaries
  // around all slots are compared once, after the last call.
  StrayWriteWatch canaries(*cand_arena_, guards_);
  canaries.Before();
  int cand_calls = 0;
  auto arena_of = [&](int side) -> Arena& { return is_ref(side) ? *ref_arena_ : *cand_arena_; };
  auto layout_of = [&](int side, int set) -> const SetLayout& {
    return is_ref(side) ? ref_sets_[set] : cand_sets_[set];
  };
  // Restores `in` into the side's buffer slot, poisons its outputs and calls it.
  auto call = [&](int side, int set, const Ids& in, uint64_t rng_seed, bool timed, CallOutcome* o) {
    LoadInputs(arena_of(side), layout_of(side, set), in);
    Poison(arena_of(side), layout_of(side, set), 0xFF);
    if (!is_ref(side)) {
      ++cand_calls;
      bool ok = CallCandidate(set, flags, std::string("during timing") + (timed ? "" : " warm-up"),
                              o, rng_seed);
      if (ok && cuda()) hold.Count(*o);
      return ok;
    }
    if (Status st = ref_arena_->Sync(); !st.ok()) {
      failure = st;
      return false;
    }
    *o = ref_->Call(static_cast<uint32_t>(set), flags, opt_.max_call_timeout);
    if (!o->ok() || o->rc != 0) {
      failure = Status::Invalid(reference_.string() + ": the reference failed while timed");
      return false;
    }
    v_.kernel_seconds += o->reported_seconds;
    return true;
  };
  // A warm-up call on a prepared value set; the candidate's output is checked.
  auto warm = [&](int side, int rep) {
    int set = rep % sets, k = rep % values;
    CallOutcome o;
    if (!call(side, set, inputs[k], rng_seeds.empty() ? 0 : rng_seeds[k], false, &o)) return false;
    if (is_ref(side)) return true;
    const SetLayout& l = layout_of(side, set);
    std::string where =
        cs.c->label + " warm-up call " + std::to_string(rep) + " value set " + std::to_string(k);
    if (!CheckInputsUnchanged(l, inputs[k], where)) return false;
    Ids actual = CaptureOutputs(arena_of(side), l);
    bool right = CheckOutputs(l, actual, expected[k], where, "timed_output", false);
    Release(actual);
    if (right) ++rechecked;
    return right;
  };
  // A timed call on repetition `rep`'s fresh inputs.
  auto timed = [&](int side, int rep, double* seconds) {
    int set = rep % sets;
    if (fresh.rep != rep) {
      fresh.Reset(*store_);
      fresh.rep = rep;
      fresh.recheck = force_recheck || unpredictable.Uniform() < 1.0 / 3;
      if (pytorch()) {
        if (Status st = PoolInputs(fresh, unpredictable); !st.ok()) {
          failure = st;
          return false;
        }
      } else {
        auto in = GenerateInputs(cs, fresh_seed + static_cast<uint64_t>(rep), 0);
        if (!in.ok()) {
          failure = in.status();
          return false;
        }
        fresh.inputs = std::move(*in);
      }
    }
    CallOutcome o;
    if (!call(side, set, fresh.inputs, fresh.rng_seed, true, &o)) return false;
    *seconds = o.reported_seconds;
    // A PyTorch task's re-checked calls repeat a pool set, which a cache
    // could answer: they are checked but not samples.
    if (pytorch() && fresh.recheck) *seconds = std::nan("");
    // A compat call held while its work also ran on a side stream the hold
    // does not hold timed only part of it; the sandbox times later calls
    // without the hold.
    if (compat() && !is_ref(side) && o.held && (o.side_launches > 0 || o.side_copies > 0)) {
      *seconds = std::nan("");
      if (!side_streams_noted) {
        side_streams_noted = true;
        v_.notes.push_back(
            "the candidate uses side streams: its calls are timed without the "
            "hold (host launch time included), like unheld PyTorch code");
      }
    }
    // A compat call's span after its end-of-forward mark (copying the
    // model's results into hone's outputs: 4 ms for a 6.4 GB output on an
    // H100) is bounded by CheckPostMark, not counted as hidden time here.
    gaps[side].push_back(o.wall_seconds - o.prepare_seconds - o.reported_seconds -
                         o.post_mark_seconds);
    prepares[side].push_back(o.prepare_seconds);
    if (!is_ref(side)) launches.push_back(o.launches);
    if (!is_ref(side) && env_.sample_gpu) gpu_samples.push_back(env_.sample_gpu());
    if (!fresh.recheck) return true;
    const SetLayout& l = layout_of(side, set);
    std::string where =
        cs.c->label + " timed call " + std::to_string(rep) +
        (pytorch() ? " (a timing pool set)"
                   : " (fresh inputs, seed " + std::to_string(fresh_seed + rep) + ")");
    if (!is_ref(side) && !CheckInputsUnchanged(l, fresh.inputs, where)) return false;
    (is_ref(side) ? fresh.expected : fresh.actual) = CaptureOutputs(arena_of(side), l);
    if (fresh.expected.empty() || fresh.actual.empty()) return true;
    bool right = CheckOutputs(l, fresh.actual, fresh.expected, where, "timed_output", false);
    fresh.Reset(*store_);
    if (!right) return false;
    ++rechecked;
    ++rechecked_timed;
    return true;
  };
  Sampler sample = [&](int side, int rep, bool is_timed, double* seconds) {
    return is_timed ? timed(side, rep, seconds) : warm(side, rep);
  };
  InterleavedTimer timer(pytorch() ? 1 : 2);
  TimerStop stop = timer.Run(opt_.timing, sample);
  HONE_RETURN_IF_ERROR(failure);
  if (decided_) return Status::Ok();
  // Random sampling can come up short on few repetitions: top up with pairs
  // of calls made exactly like timed ones (the candidate cannot tell them
  // apart), all re-checked, so a kernel that skips work whenever timed is
  // always caught. Their times are not samples.
  force_recheck = true;
  for (int rep = static_cast<int>(timer.samples(cand_side).size()) + 100000;
       rechecked_timed < kMinTimedRechecks && !decided_; ++rep) {
    double ignored;
    if (!pytorch() && !timed(0, rep, &ignored)) break;
    if (!timed(cand_side, rep, &ignored)) break;
  }
  fresh.Reset(*store_);
  HONE_RETURN_IF_ERROR(failure);
  if (decided_) return Status::Ok();
  if (!CheckNoStrayWrites(canaries, cs.c->label + " while timed", cand_calls)) return Status::Ok();
  std::string fresh_how =
      !pytorch() ? "every timed call had fresh inputs"
      : task_.pytorch->scaling_allowed
          ? "timed calls drew from " + std::to_string(plan_.pool_sets) +
                " oracle sets made for this run; unchecked ones scaled by a fresh factor"
          : "timed calls drew from " + std::to_string(plan_.pool_sets) +
                " oracle sets made for this run (the task allows no scaling, so they repeat)";
  v_.checks.push_back(
      {"timed_output", cs.c->label, true,
       std::to_string(rechecked) + " outputs of timed and warm-up calls re-checked; " + fresh_how});
  if (std::string held = hold.Describe("the candidate"); !held.empty()) v_.notes.push_back(held);
  v_.notes.push_back("timing stopped: " + TimerStopName(stop) + " after " +
                     std::to_string(timer.samples(cand_side).size()) +
                     (pytorch() ? " repetitions" : " interleaved repetitions") + " and " +
                     std::to_string(timer.warmup_calls()) + " warm-up calls");
  if (timer.samples(cand_side).empty()) {
    v_.notes.push_back("not timed: every timed call was a re-check (raise --max-reps)");
    return Status::Ok();
  }
  TimingResult ref, cand;
  cand.samples = timer.samples(cand_side);
  cand.summary = Summarize(cand.samples);
  cand.call_overhead = Summarize(gaps[cand_side]).median;
  if (!pytorch()) {
    ref.samples = timer.samples(0);
    ref.summary = Summarize(ref.samples);
    ref.call_overhead = Summarize(gaps[0]).median;
  }
  v_.call_overhead_seconds = cand.call_overhead;
  ReportedTimeBounds bounds;
  bounds.ref_prepare = pytorch() ? -1 : Summarize(prepares[0]).median;
  bounds.cand_prepare = Summarize(prepares[cand_side]).median;
  bounds.flush_ratio = FlushedBytesRatio();
  bounds.launches = launches.empty() ? 0 : Summarize(launches).median;
  if (!CheckReportedTimes(ref, cand, bounds)) return Status::Ok();
  v_.candidate_time = cand;
  // A PyTorch task's baselines come from the oracle after the last check
  // (ExecuteSteps): timing them here would give work the candidate left
  // running time to finish unobserved, and would compete with it.
  if (!pytorch()) {
    v_.reference_time = ref;
    if (cand.summary.median > 0) v_.speedup = ref.summary.median / cand.summary.median;
  }
  double bytes = 0, flops = 0;
  if (task_.cost_bytes) bytes = task_.cost_bytes->Eval(cs.c->symbols).value();
  if (task_.cost_flops) flops = task_.cost_flops->Eval(cs.c->symbols).value();
  v_.sol_seconds = SpeedOfLightSeconds(bytes, flops, machine());
  if (!gpu_samples.empty()) v_.device_state = Summarize(gpu_samples);
  if (v_.sol_seconds > 0 && cand.summary.median > 0)
    v_.sol_percent = 100 * v_.sol_seconds / cand.summary.median;
  if (v_.sol_percent > 100)
    v_.notes.push_back("suspect: faster than speed of light (" + Num(v_.sol_percent) +
                       "%): the task's cost formulas or the machine's measured ceilings may be "
                       "wrong, or the kernel skips work");
  return Status::Ok();
}

// The end of a baseline sandbox's output, for a reason it failed.
std::string OutputEnds(const SandboxProcess& sandbox) {
  const std::string& log = sandbox.log();
  return "; its output ends: " + log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
}

// Why a baseline the user did not ask for (--baselines) is missing.
constexpr const char* kBaselineNotAsked = "not asked for (--baselines)";

TimingResult BaselineResult(const BaselineTiming& b) {
  TimingResult r;
  r.samples = b.samples;
  r.summary = Summarize(b.samples);
  return r;
}

void Run::LookUpBaselines() {
  if (!pytorch() || !opt_.time) return;
  baseline_key_ = {task_.hash, env_.oracle->device_description(), env_.oracle->torch_version(),
                   FlushModeName(opt_.flush)};
  if (!opt_.eager_baseline) {
    Baselines none;
    none.eager.reason = none.compiled.reason = kBaselineNotAsked;
    baselines_ = none;
    return;
  }
  const bool compile = opt_.compile_baseline;
  if (auto dir = CacheDir(); dir.ok()) {
    baselines_ = BaselineCache(*dir / "baselines").Lookup(baseline_key_);
    // An entry timed without torch.compile serves a run that wants it only
    // when there is no torch.compile to time.
    if (baselines_ && (!compile || baselines_->compiled.reason != kBaselineNotAsked)) return;
    baselines_.reset();
  }
  Baselines pending;
  baseline_runs_.emplace_back().mode = CompatMode::kEager;
  if (!compile) {
    pending.compiled.reason = kBaselineNotAsked;
  } else if (env_.oracle->hello().value("compile_available", false)) {
    baseline_runs_.emplace_back().mode = CompatMode::kCompile;
  } else {
    pending.compiled.reason =
        "torch " + env_.oracle->torch_version() + " has no torch.compile (needs 2.0 or later)";
  }
  baselines_ = pending;  // completed by TimeBaselines
}

Status Run::BuildBaselines(BuildPool& pool) {
  for (BaselineRun& b : baseline_runs_) {
    CompatShimOptions o;
    o.mode = b.mode;
    HONE_ASSIGN_OR_RETURN(
        std::filesystem::path shim,
        WriteCompatShim(task_, task_.reference, *compat_runtime_, env_.scratch_root / "compat", o));
    auto built = pool.Submit(shim).get();
    if (!built.ok()) return built.status();
    if (!built->ok)
      return Status::Internal(shim.string() + ": the baseline's shim does not compile:\n" +
                              built->log);
    b.library = built->library;
  }
  return Status::Ok();
}

bool Run::BaselinesFitBeside() const {
  if (plan_.free <= 0) return true;
  int64_t each = plan_.input_sets * (demand_.inputs + demand_.outputs) + kDeviceBytesPerProcess +
                 demand_.model + demand_.forward_peak;
  return plan_.peak + static_cast<int64_t>(baseline_runs_.size()) * each <= plan_.free;
}

Result<SandboxConfig> Run::BaselineConfig(const BaselineRun& b) const {
  SandboxConfig config = BaseSandboxConfig();
  config.library = b.library;
  HONE_RETURN_IF_ERROR(MakeCompat(config));
  return config;
}

Status Run::SpawnBaseline(BaselineRun& b) {
  if (b.sandbox) return Status::Ok();
  HONE_ASSIGN_OR_RETURN(b.arena, CreateArena(backend_, cand_arena_bytes_, env_.device));
  HONE_ASSIGN_OR_RETURN(SandboxConfig config, BaselineConfig(b));
  HONE_ASSIGN_OR_RETURN(b.sandbox, SpawnSandbox(config, *b.arena, nullptr));
  return Status::Ok();
}

// Loading runs the model once (and compiles it, for torch.compile): done
// before the candidate is timed, so it never competes with its timing.
void Run::AwaitBaselines() {
  for (BaselineRun& b : baseline_runs_) {
    if (!b.sandbox || b.ready || !b.timing.reason.empty()) continue;
    auto config = BaselineConfig(b);
    CallOutcome o =
        config.ok() ? AwaitStart(b.sandbox, *config, *b.arena, Millis(kCompatStartMillis), nullptr)
                    : b.sandbox->AwaitReady(Millis(kCompatStartMillis));
    b.ready = o.ok();
    if (b.ready) continue;
    b.timing.reason =
        std::string(b.mode == CompatMode::kCompile ? "torch.compile(Model)" : "Model") +
        " did not load: " + o.detail + OutputEnds(*b.sandbox);
    b.sandbox.reset();
    b.arena.reset();
  }
}

Status Run::TimeBaselines() {
  if (baseline_runs_.empty()) return Status::Ok();
  Progress("baselines");
  // The candidate's buffers go first: a full-size problem may only fit one
  // set of sandbox buffers at a time.
  cand_arena_.reset();
  for (BaselineRun& b : baseline_runs_) {
    if (!b.sandbox && b.timing.reason.empty()) HONE_RETURN_IF_ERROR(SpawnBaseline(b));
    AwaitBaselines();
    SettleBeforeTiming();
    if (b.sandbox) TimeBaseline(b);
    b.sandbox.reset();
    b.arena.reset();
  }
  Baselines measured = baselines_.value_or(Baselines{});
  for (BaselineRun& b : baseline_runs_)
    (b.mode == CompatMode::kCompile ? measured.compiled : measured.eager) = b.timing;
  measured.cached = false;
  measured.device = baseline_key_.device;
  measured.torch_version = baseline_key_.torch_version;
  baselines_ = measured;
  if (measured.eager.available)
    if (auto dir = CacheDir(); dir.ok())
      if (Status st = BaselineCache(*dir / "baselines").Store(baseline_key_, measured); !st.ok())
        v_.notes.push_back("the baselines were not cached: " + st.message());
  return Status::Ok();
}

// The candidate's timing protocol for one baseline: its buffer slots laid
// out like the candidate's, warm-up on the timing pool's sets, then
// unchecked calls on pool sets scaled by fresh factors, until precise or out
// of budget. Its outputs are not checked: the baseline is the task's own
// model, trusted like the oracle.
void Run::TimeBaseline(BaselineRun& b) {
  std::string what = b.mode == CompatMode::kCompile ? "torch.compile(Model)" : "Model";
  for (int s = 0; s < plan_.input_sets; ++s) {
    CallOutcome o = b.sandbox->Bind(static_cast<uint32_t>(s), Slots(cand_sets_[s].inputs),
                                    Slots(cand_sets_[s].outputs), opt_.max_call_timeout);
    if (!o.ok()) {
      b.timing.reason = what + " failed to bind: " + o.detail;
      return;
    }
  }
  // One call unheld first, as the candidate's verification calls are: the
  // shim loads the task's parameters on its first call, and a ResNet-101's
  // hundreds of copies on top of its launches would fill the held stream's
  // queue and run the hold out for every later call.
  LoadInputs(*b.arena, cand_sets_[0], pool_[0].inputs);
  if (Status st = b.arena->Sync(); !st.ok()) {
    b.timing.reason = what + ": " + st.message();
    return;
  }
  if (CallOutcome o = b.sandbox->Call(0, 0, opt_.max_call_timeout, pool_[0].rng_seed);
      !o.ok() || o.rc != 0) {
    b.timing.reason = what + " failed its first call: " +
                      (o.ok() ? "returned " + std::to_string(o.rc) : o.detail) +
                      OutputEnds(*b.sandbox);
    return;
  }
  uint32_t flags = wire::kTimed;
  if (opt_.flush == FlushMode::kLlc) flags |= wire::kFlushLlc;
  if (opt_.flush == FlushMode::kLines) flags |= wire::kFlushLines;
  Rng unpredictable(std::random_device{}(), std::random_device{}());
  FreshRep fresh;
  std::string failure;
  std::vector<double> gaps, launches;
  HoldTally hold;
  Sampler sample = [&](int, int rep, bool is_timed, double* seconds) {
    const int set = rep % plan_.input_sets;
    const RefSet& pooled = pool_[static_cast<size_t>(rep) % pool_.size()];
    const Ids* in = &pooled.inputs;
    uint64_t rng_seed = pooled.rng_seed;
    if (is_timed) {
      fresh.Reset(*store_);
      fresh.recheck = false;
      if (Status st = PoolInputs(fresh, unpredictable); !st.ok()) {
        failure = st.message();
        return false;
      }
      in = &fresh.inputs;
      rng_seed = fresh.rng_seed;
    }
    LoadInputs(*b.arena, cand_sets_[set], *in);
    Poison(*b.arena, cand_sets_[set], 0xFF);
    if (Status st = b.arena->Sync(); !st.ok()) {
      failure = st.message();
      return false;
    }
    CallOutcome o =
        b.sandbox->Call(static_cast<uint32_t>(set), flags, opt_.max_call_timeout, rng_seed);
    if (!o.ok() || o.rc != 0) {
      failure =
          what + " failed while timed: " + (o.ok() ? "returned " + std::to_string(o.rc) : o.detail);
      return false;
    }
    // A held call whose work also ran on an unheld side stream did not time all of it.
    if (cuda()) hold.Count(o);
    bool partial = o.held && (o.side_launches > 0 || o.side_copies > 0);
    if (is_timed) *seconds = partial ? std::nan("") : o.reported_seconds;
    if (is_timed && !partial) {
      launches.push_back(o.launches);
      // Only a held call leaves its launches' host time out of its report.
      if (o.held)
        gaps.push_back(o.wall_seconds - o.prepare_seconds - o.reported_seconds -
                       o.post_mark_seconds);
    }
    return true;
  };
  InterleavedTimer timer(1);
  timer.Run(opt_.timing, sample);
  fresh.Reset(*store_);
  if (!failure.empty()) {
    b.timing.reason = failure + OutputEnds(*b.sandbox);
    return;
  }
  if (timer.samples(0).empty()) {
    b.timing.reason = what + " gave no timing samples";
    return;
  }
  b.timing.available = true;
  b.timing.samples = timer.samples(0);
  b.timing.median = Summarize(b.timing.samples).median;
  b.timing.warmup_calls = timer.warmup_calls();
  if (!launches.empty()) b.timing.launches_per_call = Summarize(launches).median;
  // Most timed calls held: the host time per launch is measured.
  b.timing.held = 2 * gaps.size() > launches.size();
  if (b.timing.held && b.timing.launches_per_call > 0)
    b.timing.host_seconds_per_launch =
        std::max(0.0, Summarize(gaps).median) / b.timing.launches_per_call;
  std::string held = hold.Describe("hold");
  b.timing.timer = std::string(cuda() ? "CUDA events on the legacy default stream, held"
                                      : "the sandbox's clock") +
                   ", in a hone sandbox like candidates" + (held.empty() ? "" : " (" + held + ")");
}

Status Run::SetBaselines() {
  if (!baselines_) return Status::Ok();
  const Baselines& b = *baselines_;
  const double cand = v_.candidate_time->summary.median;
  v_.baseline = "torch eager";
  if (b.eager.available) {
    v_.reference_time = BaselineResult(b.eager);
    if (cand > 0) v_.speedup = v_.reference_time->summary.median / cand;
    if (!b.eager.timer.empty()) v_.notes.push_back("eager baseline timed by " + b.eager.timer);
  } else {
    v_.notes.push_back("no eager baseline: " + b.eager.reason);
  }
  if (b.compiled.available) {
    v_.compile_time = BaselineResult(b.compiled);
    if (cand > 0) v_.speedup_compile = v_.compile_time->summary.median / cand;
  } else {
    v_.compile_unavailable = b.compiled.reason;
  }
  v_.notes.push_back(std::string("baselines ") +
                     (b.cached ? "read from the cache" : "timed now, after the candidate,") +
                     " on " + b.device + " with torch " + b.torch_version +
                     " (the task's Model in a sandbox, timed like candidates; speedup = "
                     "baseline median / candidate median)");
  return Status::Ok();
}

// How many more bytes a candidate's line flush covers than the reference's
// (its workspace, say): with --flush lines their flushes differ by that much.
double Run::FlushedBytesRatio() const {
  if (opt_.flush != FlushMode::kLines) return 1;
  auto bytes = [](const SetLayout& l, uint64_t workspace) {
    double b = static_cast<double>(workspace);
    for (const auto* ps : {&l.inputs, &l.outputs})
      for (const auto& p : *ps) b += static_cast<double>(p.bytes);
    return b;
  };
  double ref = bytes(ref_sets_[0], ref_workspace_bytes_);
  double cand = bytes(cand_sets_[0], cand_workspace_bytes_);
  return ref > 0 ? std::max(1.0, cand / ref) : 1.0;
}

bool Run::CheckReportedTimes(const TimingResult& ref, const TimingResult& cand,
                             const ReportedTimeBounds& b) {
  // Both sides flush the same bytes (scaled for a line flush that also
  // covers a workspace): a longer flush is call time moved.
  const double ref_prepare = b.ref_prepare, cand_prepare = b.cand_prepare;
  // ref_prepare < 0: no reference side (a PyTorch task); the call-time check
  // below then compares with a zero reference gap.
  if (ref_prepare >= 0 &&
      cand_prepare > 1.5 * ref_prepare * b.flush_ratio + kUnreportedFloorSeconds) {
    std::string detail = "the sandbox reported a cache flush of " + Seconds(cand_prepare) +
                         " per timed call where the reference's takes " + Seconds(ref_prepare);
    v_.checks.push_back({"reported_time", v_.timed_case, false, detail});
    Decide(VerdictStatus::kRejected,
           "timing does not add up: " + detail + ": time moved out of the measured span");
    return false;
  }
  // The worker's clock around a call sees the request, the cache flush, the
  // call and the reply; the sandbox reports the call and (on the CPU) the
  // flush. Both sides pay the same harness costs, so the candidate's
  // unreported time should match the reference's. Time it hides (work
  // outside the measured span, a patched timer) shows up as extra.
  double extra = cand.call_overhead - ref.call_overhead;
  // On CUDA each launch costs host time that the hold keeps out of the events.
  double allowed = kUnreportedFloorSeconds + kUnreportedShare * cand.summary.median +
                   kUnreportedPerLaunchSeconds * b.launches;
  // A compat candidate on the CPU has no reference side to compare with, and
  // the shim's Python around the forward (argument views, output checks)
  // costs it 0.4-0.8 ms per call on a loaded 2-core machine.
  if (compat() && !cuda()) allowed += kCompatShimCpuSeconds;
  std::string detail =
      "the worker's clock saw " + Seconds(cand.call_overhead) +
      " per timed call beyond the reported time (the reference: " + Seconds(ref.call_overhead) +
      "; allowed extra " + Seconds(allowed) + ")";
  if (extra <= allowed) return RecordCallTime(true, detail, cand.summary.median);
  if (compat() && cuda() && b.launches > 0) {
    deferred_call_time_ = {extra, allowed, b.launches, cand.summary.median,
                           "the worker's clock saw " + Seconds(cand.call_overhead) +
                               " per timed call beyond the reported time, over " + Num(b.launches) +
                               " launches"};
    return true;
  }
  return RecordCallTime(false, detail, cand.summary.median);
}

bool Run::RecordCallTime(bool ok, const std::string& detail, double reported_median) {
  v_.checks.push_back({"reported_time", v_.timed_case, ok, detail});
  if (!ok)
    Decide(VerdictStatus::kRejected,
           "timing does not add up: " + detail + " for a reported median of " +
               Seconds(reported_median) +
               ": work done outside the measured span, or a tampered timer");
  return ok;
}

void Run::CheckDeferredCallTime() {
  if (!deferred_call_time_) return;
  const DeferredCallTime& d = *deferred_call_time_;
  const BaselineTiming* eager =
      baselines_ && baselines_->eager.available ? &baselines_->eager : nullptr;
  double per_launch = eager ? eager->host_seconds_per_launch : 0;
  // At most as many launches as the Model makes get its rate: launches added
  // beyond those (empty ones, say) cannot buy hidden host time.
  double at_eager_rate = eager ? std::min(d.launches, eager->launches_per_call) : 0;
  double allowed = d.allowed + at_eager_rate * (kEagerLaunchMargin *
                                                    std::max(per_launch, kEagerLaunchFloorSeconds) -
                                                kUnreportedPerLaunchSeconds);
  std::string why;
  if (eager && per_launch > 0) {
    why = " (the eager Model's host time per launch here is " + Seconds(per_launch) + ")";
  } else if (eager && !eager->held) {
    // The Model's hold ran out, so its whole forward, host dispatch included,
    // was timed: the most its dispatch can cost.
    allowed += kEagerLaunchMargin * eager->median;
    why = " (the eager Model was timed unheld, host dispatch included, at " +
          Seconds(eager->median) + ")";
  } else {
    why =
        " (no eager baseline measured PyTorch's host time per launch here: time one, "
        "without --baselines none)";
  }
  RecordCallTime(d.extra <= allowed, d.detail + "; allowed " + Seconds(allowed) + why, d.median);
}

Status Run::Execute(const std::filesystem::path& candidate) {
  Status st = ExecuteSteps(candidate);
  if (st.ok() && !env_failure_.ok()) st = env_failure_;
  if (cand_) {
    v_.output_head = cand_->log();
    v_.output_bytes = cand_->log_bytes();
  }
  return st;
}

Status Run::ExecuteSteps(const std::filesystem::path& candidate) {
  // Wall time per stage, so a slow evaluation says where its time went.
  auto stage_start = Clock::now();
  auto stage_done = [&](const char* name) {
    auto now = Clock::now();
    v_.stage_seconds.emplace_back(name, std::chrono::duration<double>(now - stage_start).count());
    stage_start = now;
  };
  std::filesystem::path ref_lib, cand_lib;
  if (compat() && !pytorch())
    return Status::Invalid(candidate.string() +
                           ": a ModelNew (.py) candidate needs a PyTorch task (.py), not " +
                           task_.dir.string());
  if (pytorch()) {
    if (!env_.oracle)
      return Status::Internal("a PyTorch task needs the oracle (EvaluatorEnv::oracle)");
    const std::string& device = task_.pytorch->device;
    if (device.rfind(cuda() ? "cuda" : "cpu", 0) != 0)
      return Status::Invalid(task_.reference.string() + ": the task was loaded on " + device +
                             ", the candidate runs on the " + backend_ + " backend");
    v_.shapes = task_.pytorch->shapes;
    if (task_.pytorch->scale != 1 || !task_.pytorch->policy.empty())
      v_.shapes +=
          task_.pytorch->policy.empty()
              ? " (shape scale " + Num(task_.pytorch->scale) + ")"
              : " (policy " + task_.pytorch->policy + ", scale " + Num(task_.pytorch->scale) + ")";
  }
  if (compat()) {
    HONE_RETURN_IF_ERROR(PrebuildCompat(candidate));
    stage_done("prebuild");
    if (decided_) return Status::Ok();
  }
  HONE_RETURN_IF_ERROR(Lint(candidate));
  stage_done("lint");
  if (decided_) return Status::Ok();
  LookUpBaselines();
  HONE_RETURN_IF_ERROR(Build(candidate, &ref_lib, &cand_lib));
  stage_done("build");
  if (decided_) return Status::Ok();
  HONE_RETURN_IF_ERROR(ResolveShapes());
  HONE_RETURN_IF_ERROR(StartSandboxes(ref_lib, cand_lib));
  stage_done("start");
  if (decided_) return Status::Ok();
  for (const auto& cs : cases_) {
    HONE_RETURN_IF_ERROR(VerifyCase(cs));
    if (decided_) return Status::Ok();
  }
  stage_done("verify");
  if (opt_.sanitize) {
    HONE_RETURN_IF_ERROR(Sanitize(cand_lib));
    stage_done("sanitize");
    if (decided_) return Status::Ok();
  }
  // Idle CPU time is counted between all calls; the check (with its quiet
  // pause) runs once, after the last call.
  // The timing pool stays in the store for the baselines, then goes.
  ClearStoreOnExit clear{*store_};
  struct ForgetPool {
    std::vector<RefSet>& pool;
    ~ForgetPool() { pool.clear(); }
  } forget_pool{pool_};
  if (opt_.time) {
    AwaitBaselines();
    SettleBeforeTiming();
    HONE_RETURN_IF_ERROR(Time());
    stage_done("time");
  }
  if (!decided_) CheckNoWorkAfterReturn();
  if (!decided_ && pytorch() && v_.candidate_time) {
    // The candidate is gone before the baselines are timed on the same
    // device: a thread or process it left behind must not slow them (they
    // are cached for every later candidate).
    v_.output_head = cand_->log();
    v_.output_bytes = cand_->log_bytes();
    cand_.reset();
    HONE_RETURN_IF_ERROR(TimeBaselines());
    HONE_RETURN_IF_ERROR(SetBaselines());
    CheckDeferredCallTime();
    stage_done("baselines");
  }
  if (!decided_) {
    v_.status = VerdictStatus::kPassed;
    v_.reason = "correct on " + std::to_string(cases_.size()) + " shape case(s) x " +
                std::to_string(task_.seeds) + " seeds x " +
                std::to_string(task_.num_distributions) + " value distributions";
  }
  return Status::Ok();
}

std::vector<Check> SanitizerChecks(const Verdict& v) {
  std::vector<Check> out;
  for (const auto& c : v.checks)
    if (c.name.rfind("sanitizer_", 0) == 0) out.push_back(c);
  return out;
}

// Whether the speedup can be read as one (measure/speedup.h).
void ResolveVerdictSpeedup(Verdict& v, double target_rse) {
  if (!v.candidate_time || !v.reference_time || v.speedup <= 0) return;
  SpeedupInterval s =
      ResolveSpeedup(v.reference_time->summary, v.candidate_time->summary, target_rse);
  v.speedup_low = s.low;
  v.speedup_high = s.high;
  v.speedup_unresolved = s.unresolved;
}

}  // namespace

std::string FlushModeName(FlushMode m) {
  switch (m) {
    case FlushMode::kLlc:
      return "llc";
    case FlushMode::kLines:
      return "lines";
    case FlushMode::kNone:
      return "none";
  }
  return "unknown";
}

std::optional<FlushMode> ParseFlushMode(const std::string& s) {
  if (s == "llc") return FlushMode::kLlc;
  if (s == "lines") return FlushMode::kLines;
  if (s == "none") return FlushMode::kNone;
  return std::nullopt;
}

size_t DefaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  size_t ram =
      pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : (8ull << 30);
  return std::min<size_t>(ram / 8, 2ull << 30);
}

Evaluator::Evaluator(EvaluatorEnv env)
    : env_(std::move(env)), warm_pool_(std::make_unique<WarmPool>(WarmSandboxesEnabled())) {}
Evaluator::~Evaluator() = default;

Result<CompatPrebuilder*> Evaluator::Prebuilder() {
  if (prebuilder_) return prebuilder_.get();
  if (!env_.oracle) return Status::Internal("compat candidates need the oracle");
  HONE_ASSIGN_OR_RETURN(std::filesystem::path cache, CacheDir());
  torch_builder_ = std::make_unique<TorchExtensionBuilder>(cache / "torch-extensions");
  prebuilder_ = std::make_unique<CompatPrebuilder>(*env_.oracle, *torch_builder_,
                                                   env_.scratch_root / "extensions");
  return prebuilder_.get();
}

void Evaluator::PrewarmCompat(const std::string& backend, const EvalOptions& options) {
  if (!env_.oracle || !warm_pool_->enabled()) return;
  auto runtime = CompatRuntimeFromHello(env_.oracle->hello(), env_.oracle->python_dir());
  if (!runtime.ok()) return;  // the evaluation says why compat cannot run
  SandboxConfig config = BaseConfig(env_, options, backend == "cuda");
  if (AddCompat(config, *runtime).ok()) warm_pool_->Prepare(config);
}

void Evaluator::PrebuildCompat(const std::vector<std::filesystem::path>& candidates,
                               const std::function<void(int, int)>& progress) {
  if (candidates.empty() || !env_.oracle) return;
  auto p = Prebuilder();
  if (p.ok()) (*p)->PrebuildAll(candidates, progress);
}

Status Evaluator::SanitizeInto(const Task& task, const std::filesystem::path& candidate,
                               const EvalOptions& options, Verdict& v) {
  EvalOptions o = options;
  o.time = false;
  o.sanitize = true;
  HONE_ASSIGN_OR_RETURN(Verdict checked, Evaluate(task, candidate, o));
  v.sanitizer = checked.sanitizer;
  if (!v.sanitizer) {
    // Verification failed this time: say so rather than nothing.
    v.sanitizer.emplace().not_run = "the verification before it ended " +
                                    std::string(StatusName(checked.status)) + ": " +
                                    checked.reason.substr(0, 300);
    return Status::Ok();
  }
  for (const auto& c : SanitizerChecks(checked)) v.checks.push_back(c);
  for (const auto& n : checked.notes)
    if (n.rfind("compute-sanitizer", 0) == 0) v.notes.push_back(n);
  if (checked.status == VerdictStatus::kRuntimeError && v.sanitizer->errors() > 0) {
    v.status = VerdictStatus::kRuntimeError;
    v.reason = checked.reason;
  }
  return Status::Ok();
}

Result<Verdict> Evaluator::Evaluate(const Task& task, const std::filesystem::path& candidate,
                                    const EvalOptions& options, const ProgressFn& progress) {
  auto start = Clock::now();
  Verdict v;
  v.task = task.name;
  v.candidate = candidate.string();
  const std::string backend =
      options.backend.empty() ? BackendForSource(candidate) : options.backend;
  v.machine = backend == "cuda" ? env_.gpu : env_.machine;
  Run run(env_, task, options, progress, v);
  run.SetBackend(backend);
  run.SetCompat(candidate.extension() == ".py");
  if (candidate.extension() == ".py" && env_.oracle) {
    HONE_ASSIGN_OR_RETURN(CompatPrebuilder * prebuilder, Prebuilder());
    run.SetPrebuilder(prebuilder);
  }
  run.SetWarmPool(warm_pool_.get(), keep_warm_);
  HONE_RETURN_IF_ERROR(run.Execute(candidate));
  ResolveVerdictSpeedup(v, options.timing.target_rse);
  if (!warm_pool_->disabled_reason().empty() && !warm_note_given_) {
    v.notes.push_back("warm sandboxes are off: " + warm_pool_->disabled_reason());
    warm_note_given_ = true;
  }
  v.total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return v;
}

}  // namespace hone
