#include "pytorch/oracle_reference.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/trace.h"
#include "core/wording.h"
#include "verify/note_words.h"

namespace hone {
namespace {

// The timing pool's seeds: drawn once per process, so the oracle's sets are
// reused by every candidate while no candidate can know them in advance.
uint64_t TimingPoolSeed() {
  static const uint64_t seed = [] {
    std::random_device rd;
    return (uint64_t{1} << 40) + ((static_cast<uint64_t>(rd()) << 8) ^ rd());
  }();
  return seed;
}

// A timed call's scale factor, and a sibling's (log-uniform in [0.5, 2]),
// rounded to float: a float32 value times a float-exact factor rounds once,
// so the worker's scaling and torch's give the same values.
double PoolScaleFactor(double uniform) {
  return static_cast<double>(static_cast<float>(std::exp2(2 * uniform - 1)));
}

// The oracle's seeds are non-negative int64s.
int64_t OracleSeed(uint64_t seed) { return static_cast<int64_t>(seed & (~0ull >> 1)); }

}  // namespace

Result<std::unique_ptr<OracleReference>> OracleReference::Open(RunState& s) {
  if (!s.oracle)
    return Status::Internal("a PyTorch task needs the oracle (Evaluator's constructor)");
  const auto& info = *s.task.pytorch;
  if (info.estimated)
    return Status::Internal(s.task.reference.string() +
                            ": the task was estimated (shapes and memory, no values): it cannot "
                            "be evaluated");
  const std::string want = s.backend.oracle_device();
  if (info.device.rfind(want.substr(0, want.find(':')), 0) != 0)
    return Status::Invalid(s.task.reference.string() + ": the task was loaded on " + info.device +
                           ", the candidate runs on the " + s.backend.name() + " backend");
  s.v.shapes = info.shapes;
  if (info.scale != 1 || !info.policy.empty())
    s.v.shapes += info.policy.empty()
                      ? " (shape scale " + Num(info.scale) + ")"
                      : " (policy " + info.policy + ", scale " + Num(info.scale) + ")";
  return std::unique_ptr<OracleReference>(new OracleReference(s));
}

std::vector<std::string> OracleReference::DistributionNames() const {
  const auto& names = s_.task.pytorch->distribution_names;
  std::vector<std::string> out;
  for (int d = 0; d < s_.task.num_distributions; ++d)
    out.push_back(static_cast<size_t>(d) < names.size() ? names[d] : std::to_string(d));
  return out;
}

Result<RefSet> OracleReference::Reference(const CaseShapes& cs, uint64_t seed, int dist, int,
                                          bool with64) {
  return Draw(cs, seed, dist, with64, 1);
}

Result<RefSet> OracleReference::Draw(const CaseShapes& cs, uint64_t seed, int dist, bool with64,
                                     double scale) {
  RefSet r;
  const bool asked64 = with64 && s_.plan.ref64 && ref64_supported_;
  with64 = asked64 && ref64_slow_seconds_ == 0;
  if (asked64 && !with64) NoteFloat64Cut();
  // The memory plan counts the oracle's forward and the store's captures as
  // taking turns; memory the store keeps cached from its captures would
  // otherwise sit beside the oracle's forward (run/memory_plan.h), unless
  // the plan has room for both (RunState::keep_caches). The value set's own
  // buffers are reused from one verification set to the next.
  if (!s_.keep_caches) s_.store->ReleaseCached(/*keep_shared=*/s_.verifying);
  const int64_t oracle_seed = OracleSeed(seed);
  r.rng_seed = static_cast<uint64_t>(oracle_seed);
  OracleService& oracle = *s_.oracle;
  OracleSet o;
  OracleTargets targets;
  targets.keep_cache = s_.keep_caches;
  targets.scale = scale;
  if (AllocateShared(cs, with64, &r, &targets)) {
    Trace("oracle reference: buffers allocated and shared");
    HONE_ASSIGN_OR_RETURN(o, oracle.GenerateInto(s_.task, oracle_seed, dist, targets));
    HONE_RETURN_IF_ERROR(s_.store->status());
    // Only here does asking cost the oracle a forward: its files hold the
    // float64 outputs whether asked for or not.
    if (with64 && o.ref64_available && o.ref64_seconds > kSlowFloat64Seconds)
      ref64_slow_seconds_ = o.ref64_seconds;
  } else {
    HONE_ASSIGN_OR_RETURN(o, oracle.Set(s_.task, oracle_seed, dist, scale));
    HONE_ASSIGN_OR_RETURN(r.inputs, UploadAll(o.inputs));
    HONE_ASSIGN_OR_RETURN(r.expected, UploadAll(o.outputs));
    if (with64 && o.ref64_available) {
      HONE_ASSIGN_OR_RETURN(r.ref64, UploadAll(o.ref64));
    }
  }
  if (with64 && !o.ref64_available) {
    Release(*s_.store, r.ref64);
    r.ref64.clear();
    ref64_supported_ = false;
    s_.v.AddNote(notes::Float64NotRun(o.ref64_reason));
  }
  if (!r.ref64.empty()) ++ref64_sets_;
  return r;
}

void OracleReference::NoteFloat64Cut() {
  if (ref64_cut_noted_) return;
  ref64_cut_noted_ = true;
  s_.v.AddNote(notes::Float64Cut(ref64_sets_, ref64_slow_seconds_, kSlowFloat64Seconds));
}

bool OracleReference::AllocateShared(const CaseShapes& cs, bool with64, RefSet* r,
                                     OracleTargets* t) {
  auto add = [&](Dtype dt, const std::vector<int64_t>& shape, Ids& ids,
                 std::vector<OracleTarget>& list) {
    const int64_t n = NumElements(shape);
    std::string ipc;
    std::optional<TrustedStore::Id> id = s_.store->AllocateShared(dt, n, &ipc);
    if (!id) return false;
    ids.push_back(*id);
    list.push_back({ipc, n * static_cast<int64_t>(DtypeSize(dt))});
    return true;
  };
  const Task& task = s_.task;
  for (size_t i = 0; i < task.inputs.size(); ++i)
    if (!add(task.inputs[i].dtype, cs.inputs[i], r->inputs, t->inputs)) return false;
  for (size_t i = 0; i < task.outputs.size(); ++i) {
    add(task.outputs[i].dtype, cs.outputs[i], r->expected, t->outputs);
    if (with64) add(Widen(task.outputs[i].dtype, true), cs.outputs[i], r->ref64, t->ref64);
  }
  return true;
}

Result<Ids> OracleReference::UploadAll(const std::vector<HostTensor>& tensors) {
  Ids out;
  for (const auto& t : tensors) {
    size_t n = t.data.size() / DtypeSize(t.dtype);
    out.push_back(s_.store->Upload(t.data.data(), t.dtype, static_cast<int64_t>(n)));
  }
  HONE_RETURN_IF_ERROR(s_.store->status());
  return out;
}

Result<std::vector<RefSet>> OracleReference::WarmupSets(const CaseShapes& cs) {
  pool_seed_ = TimingPoolSeed();
  // A candidate timed again in another process (pytorch/timing_processes.h)
  // gets a pool of its own; the last one's tensors go.
  for (RefSet& r : pool_) {
    Release(*s_.store, r.inputs);
    Release(*s_.store, r.expected);
  }
  pool_.clear();
  pool_case_ = &cs;
  fresh_siblings_ = 0;
  HONE_RETURN_IF_ERROR(FetchPool(cs));
  // Warm-up shows the sets siblings are made from, never a sibling.
  std::vector<RefSet> warmup;
  for (size_t k = 0; k < pool_.size(); ++k)
    if (!IsSibling(k)) warmup.push_back(pool_[k]);
  return warmup;
}

// Made before the timer starts, so the oracle's work never falls inside it.
// Even pool sets come from get_inputs(); odd ones, where the task allows
// scaling, are the siblings of the set before them (PoolInputs), their
// factors drawn from the pool's seed, so every candidate of this process
// meets the same sets and none can know them.
Status OracleReference::FetchPool(const CaseShapes& cs) {
  siblings_ = s_.task.pytorch->scaling_allowed;
  Rng factors(pool_seed_, 0x5ca1ed);
  for (int k = static_cast<int>(pool_.size()); k < s_.plan.pool_sets; ++k) {
    const double scale = IsSibling(static_cast<size_t>(k)) ? PoolScaleFactor(factors.Uniform()) : 1;
    const uint64_t seed =
        pool_seed_ + static_cast<uint64_t>(IsSibling(static_cast<size_t>(k)) ? k - 1 : k);
    HONE_ASSIGN_OR_RETURN(RefSet r, Draw(cs, seed, 0, /*with64=*/false, scale));
    pool_.push_back(std::move(r));
  }
  return Status::Ok();
}

Status OracleReference::DrawTimedInputs(const CaseShapes&, uint64_t, FreshRep& fresh,
                                        Rng& unpredictable) {
  fresh.sample = !fresh.recheck;
  return PoolInputs(fresh, unpredictable);
}

Status OracleReference::PoolInputs(FreshRep& fresh, Rng& unpredictable) {
  // A re-checked call takes any pool set as it is; an unchecked one an even
  // set times a fresh factor in [0.5, 2]. So the values a call sees (their
  // scale, say) never tell it whether it is checked: a candidate that skips
  // work when the inputs look unlike get_inputs() meets checked calls that
  // look the same.
  const auto& info = *s_.task.pytorch;
  if (fresh.recheck && WantsFreshSibling(unpredictable)) return FreshSibling(fresh, unpredictable);
  const bool scale = !fresh.recheck && info.scaling_allowed;
  size_t k = unpredictable.NextU64() % pool_.size();
  if (scale) k &= ~size_t{1};
  const RefSet& set = pool_.at(k);
  fresh.rng_seed = set.rng_seed;
  fresh.inputs = set.inputs;
  fresh.borrowed = set.inputs;
  if (fresh.recheck) {
    fresh.expected = set.expected;
    fresh.borrowed.insert(fresh.borrowed.end(), set.expected.begin(), set.expected.end());
  }
  if (!scale) return Status::Ok();
  // Log-uniform in [0.5, 2]: keeps zeros, signs and structure. One factor for
  // every argument, as a sibling has: factors that differ between arguments
  // would tell an unchecked call from a sibling.
  const double factor = PoolScaleFactor(unpredictable.Uniform());
  for (int i = 0; i < info.num_forward_args; ++i) {
    if (!IsFloating(s_.task.inputs[i].dtype) || !info.python_types[i].empty()) continue;
    fresh.inputs[i] = s_.store->Scaled(set.inputs[i], factor);
  }
  return s_.store->status();
}

bool OracleReference::WantsFreshSibling(Rng& unpredictable) const {
  if (!siblings_ || !pool_case_ || fresh_siblings_ >= kFreshSiblings) return false;
  const MemoryDemand& d = s_.demand;
  const bool room =
      s_.plan.free <= 0 || s_.plan.peak + d.inputs + d.outputs + d.OracleSetBytes() <= s_.plan.free;
  return room && unpredictable.Uniform() < kFreshSiblingShare;
}

Status OracleReference::FreshSibling(FreshRep& fresh, Rng& unpredictable) {
  ++fresh_siblings_;
  const size_t k = (unpredictable.NextU64() % pool_.size()) & ~size_t{1};
  const double scale = PoolScaleFactor(unpredictable.Uniform());
  HONE_ASSIGN_OR_RETURN(RefSet r, Draw(*pool_case_, pool_seed_ + k, 0, /*with64=*/false, scale));
  // Shown once: its files (where the set came through them) go now.
  s_.oracle->Forget(s_.task, OracleSeed(pool_seed_ + k), 0, scale);
  fresh.rng_seed = r.rng_seed;
  fresh.inputs = std::move(r.inputs);
  fresh.expected = std::move(r.expected);
  return Status::Ok();
}

void OracleReference::TimeBeside(SandboxProcess* sandbox, Arena* arena) {
  beside_ = sandbox;
  beside_arena_ = arena;
  beside_failure_.clear();
}

void OracleReference::StopTimingBeside() {
  beside_ = nullptr;
  beside_arena_ = nullptr;
}

Status OracleReference::CallTimed(int set, const Ids& inputs, uint32_t flags, uint64_t rng_seed,
                                  CallOutcome* o) {
  if (!beside_) return ReferenceSource::CallTimed(set, inputs, flags, rng_seed, o);
  const SetLayout& l = s_.cand.sets[static_cast<size_t>(set)];
  HONE_RETURN_IF_ERROR(PrepareTimedCall(*s_.store, *beside_arena_, l, inputs));
  *o = beside_->Call(static_cast<uint32_t>(set), flags, s_.opt.max_call_timeout, rng_seed);
  if (!o->ok() || o->rc != 0) {
    beside_failure_ = "the task's Model failed while timed beside the candidate: " +
                      (o->ok() ? "returned " + std::to_string(o->rc) : o->detail);
    return Status::Internal(s_.task.reference.string() + ": " + beside_failure_);
  }
  s_.NoteHeld(o->held);
  return Status::Ok();
}

Ids OracleReference::CaptureOutputs(int set) {
  if (!beside_) return {};
  return hone::CaptureOutputs(*s_.store, *beside_arena_, s_.cand.sets[static_cast<size_t>(set)]);
}

std::string OracleReference::TimedInputsWhere(uint64_t) const { return " (a timing pool set)"; }

std::string OracleReference::TimedInputsSummary() const {
  const std::string sets = s_.plan.pool_sets == 1
                               ? std::string("1 oracle set")
                               : std::to_string(s_.plan.pool_sets) + " oracle sets";
  if (!s_.task.pytorch->scaling_allowed)
    return "timed calls drew from " + sets +
           " made for this run (the task allows no scaling, so they repeat)";
  const std::string checked =
      s_.plan.pool_sets == 1
          ? "re-checked ones as made"
          : "re-checked ones as made (every other set a scaled copy of the one before, so the "
            "two look alike)";
  return "timed calls drew from " + sets + " made for this run; unchecked ones scaled by a " +
         "fresh factor, " + checked +
         (fresh_siblings_ > 0
              ? ", or fresh copies made for them (" + std::to_string(fresh_siblings_) + ")"
              : "");
}

}  // namespace hone
