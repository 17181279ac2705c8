#include "run/native_reference.h"

#include <algorithm>

#include "verify/note_words.h"

namespace hone {

std::vector<std::string> NativeReference::DistributionNames() const {
  std::vector<std::string> names;
  for (int d = 0; d < s_.task.num_distributions; ++d) {
    std::string name;
    for (const auto& in : s_.task.inputs) {
      if (!name.empty()) name += ", ";
      name += in.name + "~" + in.values[static_cast<size_t>(d) % in.values.size()].text();
    }
    names.push_back(name.empty() ? "none" : name);
  }
  return names;
}

Status NativeReference::Build(BuildPool& pool) {
  HONE_ASSIGN_OR_RETURN(source_, s_.task.ReferenceFor(s_.backend.traits().tasks_as));
  auto ref = pool.Submit(source_).get();
  if (!ref.ok()) return ref.status();
  if (!ref->ok)
    return Status::Invalid(source_.string() + ": the task's reference does not compile:\n" +
                           ref->log);
  library_ = ref->library;
  return Status::Ok();
}

Status NativeReference::Allocate() {
  size_t bytes = 0;
  for (const auto& cs : s_.cases)
    bytes = std::max(bytes, PlaceReferenceSets(s_.task, cs, s_.plan.input_sets, nullptr, nullptr));
  HONE_ASSIGN_OR_RETURN(arena_, s_.backend.CreateArena(bytes));
  return Status::Ok();
}

Status NativeReference::Spawn(const SandboxConfig& base) {
  SandboxConfig config = base;
  config.library = library_;
  HONE_ASSIGN_OR_RETURN(sandbox_, SandboxProcess::Spawn(config, *arena_));
  return Status::Ok();
}

Status NativeReference::AwaitReady() {
  CallOutcome o = sandbox_->AwaitReady(s_.opt.start_timeout);
  if (o.ok()) return Status::Ok();
  sandbox_.reset();
  return Status::Invalid(source_.string() + ": the task's reference failed to load: " + o.detail);
}

Status NativeReference::Bind(const CaseShapes& cs) {
  const int slots = s_.plan.input_sets;
  sets_.assign(static_cast<size_t>(slots), {});
  f64_ = {};
  PlaceReferenceSets(s_.task, cs, slots, &sets_, &f64_);
  for (int s = 0; s <= slots; ++s) {
    const SetLayout& l = s < slots ? sets_[s] : f64_;
    CallOutcome o = sandbox_->Bind(static_cast<uint32_t>(s), Slots(l.inputs), Slots(l.outputs),
                                   s_.opt.max_call_timeout);
    if (!o.ok())
      return Status::Invalid(source_.string() + ": the reference failed to bind: " + o.detail);
    workspace_bytes_ = o.aux;
  }
  return Status::Ok();
}

Result<RefSet> NativeReference::Reference(const CaseShapes& cs, uint64_t seed, int dist, int set,
                                          bool with64) {
  RefSet r;
  HONE_ASSIGN_OR_RETURN(r.inputs, GenerateInputs(cs, seed, dist));
  HONE_ASSIGN_OR_RETURN(r.expected, Run(r.inputs, set));
  if (with64) {
    HONE_ASSIGN_OR_RETURN(r.ref64, Run64(r.inputs));
  }
  return r;
}

Result<Ids> NativeReference::GenerateInputs(const CaseShapes& cs, uint64_t seed, int dist) {
  Ids out;
  for (size_t i = 0; i < s_.task.inputs.size(); ++i) {
    const TensorDecl& d = s_.task.inputs[i];
    const Distribution& dd = d.values[static_cast<size_t>(dist) % d.values.size()];
    auto spec = dd.Compile(cs.inputs[i], cs.c->symbols);
    if (!spec.ok()) {
      Release(*s_.store, out);
      return spec.status().With(s_.task.dir.string() + ": inputs[" + std::to_string(i) + "]: ");
    }
    out.push_back(s_.store->Generate(*spec, d.dtype, NumElements(cs.inputs[i]), seed,
                                     i * 64 + static_cast<uint64_t>(dist)));
  }
  return out;
}

Result<Ids> NativeReference::Run(const Ids& inputs, int set) {
  const SetLayout& l = sets_[static_cast<size_t>(set)];
  LoadInputs(*s_.store, *arena_, l, inputs);
  Poison(*arena_, l, 0xFF);
  HONE_RETURN_IF_ERROR(s_.store->status());
  HONE_RETURN_IF_ERROR(arena_->Sync());
  CallOutcome o = sandbox_->Call(static_cast<uint32_t>(set), 0, s_.opt.max_call_timeout);
  if (!o.ok() || o.rc != 0)
    return Status::Invalid(source_.string() + ": the task's reference failed: " +
                           (o.ok() ? "returned " + std::to_string(o.rc) : o.detail));
  s_.ref_seconds_max = std::max(s_.ref_seconds_max, o.reported_seconds);
  s_.v.kernel_seconds += o.reported_seconds;
  return hone::CaptureOutputs(*s_.store, *arena_, l);
}

Result<Ids> NativeReference::Run64(const Ids& inputs) {
  if (!ref64_supported_) return Ids{};
  LoadInputs(*s_.store, *arena_, f64_, inputs);
  Poison(*arena_, f64_, 0xFF);
  uint32_t binding = static_cast<uint32_t>(s_.plan.input_sets);
  HONE_RETURN_IF_ERROR(s_.store->status());
  HONE_RETURN_IF_ERROR(arena_->Sync());
  CallOutcome o = sandbox_->Call(binding, 0, s_.opt.max_call_timeout);
  if (!o.ok())
    return Status::Invalid(source_.string() +
                           ": the task's reference failed in float64: " + o.detail);
  if (o.rc != 0) {
    ref64_supported_ = false;
    s_.v.AddNote(notes::Float64ReferenceReturned(o.rc));
    return Ids{};
  }
  s_.v.kernel_seconds += o.reported_seconds;
  return hone::CaptureOutputs(*s_.store, *arena_, f64_);
}

Result<std::vector<RefSet>> NativeReference::WarmupSets(const CaseShapes& cs) {
  const int slots = s_.plan.input_sets;
  std::vector<RefSet> sets;
  for (int k = 0; k < slots + 1; ++k) {
    HONE_ASSIGN_OR_RETURN(
        RefSet r, Reference(cs, s_.opt.seed * 1000003ull + 1000 + static_cast<uint64_t>(k), 0,
                            k % slots, false));
    sets.push_back(std::move(r));
  }
  return sets;
}

Status NativeReference::DrawTimedInputs(const CaseShapes& cs, uint64_t seed, FreshRep& fresh,
                                        Rng&) {
  HONE_ASSIGN_OR_RETURN(fresh.inputs, GenerateInputs(cs, seed, 0));
  fresh.sample = true;
  return Status::Ok();
}

std::string NativeReference::TimedInputsWhere(uint64_t seed) const {
  return " (fresh inputs, seed " + std::to_string(seed) + ")";
}

std::string NativeReference::TimedInputsSummary() const {
  return "every timed call had fresh inputs";
}

// A native reference draws no random numbers: the seed is not passed on.
Status NativeReference::CallTimed(int set, const Ids& inputs, uint32_t flags, uint64_t,
                                  CallOutcome* o) {
  const SetLayout& l = sets_[static_cast<size_t>(set)];
  HONE_RETURN_IF_ERROR(PrepareTimedCall(*s_.store, *arena_, l, inputs));
  *o = sandbox_->Call(static_cast<uint32_t>(set), flags, s_.opt.max_call_timeout);
  if (!o->ok() || o->rc != 0)
    return Status::Invalid(source_.string() + ": the reference failed while timed");
  s_.v.kernel_seconds += o->reported_seconds;
  return Status::Ok();
}

Ids NativeReference::CaptureOutputs(int set) {
  return hone::CaptureOutputs(*s_.store, *arena_, sets_[static_cast<size_t>(set)]);
}

double NativeReference::FlushedBytes() const {
  return hone::FlushedBytes(sets_[0], workspace_bytes_);
}

}  // namespace hone
