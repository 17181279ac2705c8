#include "run/buffer_layout.h"

#include <algorithm>

namespace hone {

Result<std::vector<CaseShapes>> ResolveCases(const Task& task, const std::string& backend) {
  std::vector<CaseShapes> cases;
  for (const ShapeCase* c : task.CasesFor(backend)) {
    CaseShapes cs{c, {}, {}};
    for (const auto& d : task.inputs) {
      HONE_ASSIGN_OR_RETURN(auto s, ResolveShape(d, *c));
      cs.inputs.push_back(std::move(s));
    }
    for (const auto& d : task.outputs) {
      HONE_ASSIGN_OR_RETURN(auto s, ResolveShape(d, *c));
      cs.outputs.push_back(std::move(s));
    }
    cases.push_back(std::move(cs));
  }
  if (cases.empty())
    return Status::Invalid(task.dir.string() + ": no shape case runs on the " + backend +
                           " backend");
  return cases;
}

Dtype Widen(Dtype t, bool f64) { return f64 && IsFloating(t) ? HONE_F64 : t; }

size_t PlaceSet(const Task& task, const CaseShapes& cs, bool f64, size_t offset, SetLayout* out,
                size_t guard) {
  auto place = [&](const std::vector<TensorDecl>& decls,
                   const std::vector<std::vector<int64_t>>& shapes, std::vector<Placement>& list) {
    for (size_t i = 0; i < decls.size(); ++i) {
      Placement p;
      p.name = decls[i].name;
      p.dtype = Widen(decls[i].dtype, f64);
      p.shape = shapes[i];
      p.numel = NumElements(p.shape);
      p.bytes = static_cast<size_t>(p.numel) * DtypeSize(p.dtype);
      // The padding before an aligned tensor is part of the guard before it.
      p.offset = TensorStart(offset, p.bytes);
      offset = p.offset + AlignArena(std::max<size_t>(p.bytes, 1)) + guard;
      list.push_back(p);
    }
  };
  place(task.inputs, cs.inputs, out->inputs);
  place(task.outputs, cs.outputs, out->outputs);
  return offset;
}

size_t PlaceCandidateSets(const Task& task, const CaseShapes& cs, int slots,
                          std::vector<SetLayout>* sets) {
  size_t off = kGuardBytes;
  SetLayout scratch;
  for (int s = 0; s < slots; ++s)
    off = PlaceSet(task, cs, false, off, sets ? &(*sets)[static_cast<size_t>(s)] : &scratch,
                   kGuardBytes);
  return off;
}

size_t PlaceReferenceSets(const Task& task, const CaseShapes& cs, int slots,
                          std::vector<SetLayout>* sets, SetLayout* f64) {
  size_t off = 0;
  SetLayout scratch;
  for (int s = 0; s < slots; ++s)
    off = PlaceSet(task, cs, false, off, sets ? &(*sets)[static_cast<size_t>(s)] : &scratch);
  return PlaceSet(task, cs, true, off, f64 ? f64 : &scratch);
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

std::vector<ArenaSpan> CandidateBuffers(const std::vector<SetLayout>& sets, int set,
                                        std::vector<size_t>* offsets_of_set) {
  std::vector<ArenaSpan> buffers;
  for (size_t s = 0; s < sets.size(); ++s)
    for (const auto& [kind, list] :
         {std::pair{"input", &sets[s].inputs}, std::pair{"output", &sets[s].outputs}})
      for (const Placement& p : *list) {
        buffers.push_back(
            {p.offset, p.bytes,
             std::string(kind) + " '" + p.name + "' of buffer set " + std::to_string(s)});
        if (offsets_of_set && static_cast<int>(s) == set) offsets_of_set->push_back(p.offset);
      }
  return buffers;
}

std::vector<ArenaSpan> CandidateSpansToKeep(const std::vector<SetLayout>& sets, int set,
                                            size_t arena_size) {
  std::vector<size_t> exempt;
  std::vector<ArenaSpan> buffers = CandidateBuffers(sets, set, &exempt);
  return SpansToKeep(std::move(buffers), exempt, arena_size);
}

double FlushedBytes(const SetLayout& set, uint64_t workspace) {
  double b = static_cast<double>(workspace);
  for (const auto* ps : {&set.inputs, &set.outputs})
    for (const auto& p : *ps) b += static_cast<double>(p.bytes);
  return b;
}

void LoadInputs(TrustedStore& store, Arena& arena, const SetLayout& set, const Ids& inputs) {
  for (size_t i = 0; i < set.inputs.size(); ++i)
    store.Restore(inputs[i], arena, set.inputs[i].offset, set.inputs[i].dtype);
}

void Poison(Arena& arena, const SetLayout& set, uint8_t pattern) {
  for (const auto& p : set.outputs) arena.Fill(p.offset, pattern, p.bytes);
}

Status PrepareTimedCall(TrustedStore& store, Arena& arena, const SetLayout& set,
                        const Ids& inputs) {
  LoadInputs(store, arena, set, inputs);
  Poison(arena, set, 0xFF);
  return arena.Sync();
}

Ids CaptureOutputs(TrustedStore& store, Arena& arena, const SetLayout& set) {
  Ids out;
  for (const auto& p : set.outputs) out.push_back(store.Capture(arena, p.offset, p.dtype, p.numel));
  return out;
}

void Release(TrustedStore& store, const Ids& ids) {
  for (auto id : ids) store.Release(id);
}

}  // namespace hone
