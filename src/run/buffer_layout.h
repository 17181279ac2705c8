// Where one evaluation's tensors sit in the shared arenas, and how they move
// between the worker's TrustedStore and an arena.
//
// A shape case's tensors are laid out once per buffer slot (the slots timing
// rotates through), each 256-byte aligned. The candidate's arena has
// kGuardBytes of canary before its first tensor and after every tensor
// (process/stray_writes.h); the reference's has no canaries and one more slot
// after its own, its floating tensors widened to float64 for the precision
// run. Expected outputs never enter an arena: only inputs go in and outputs
// come out.
//
// Placing is pure arithmetic. The moves go through the store, which keeps a
// device failure for its status() (callers check it before trusting a
// result). Not thread-safe: the store is not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "process/arena.h"
#include "process/stray_writes.h"
#include "run/trusted_store.h"
#include "task/task.h"
#include "wire/protocol.h"

namespace hone {

// One shape case with the shape of every input and output resolved.
struct CaseShapes {
  const ShapeCase* c;
  std::vector<std::vector<int64_t>> inputs, outputs;
};

// The cases of `task` that run on `backend`; Invalid when there is none.
Result<std::vector<CaseShapes>> ResolveCases(const Task& task, const std::string& backend);

struct Placement {
  std::string name;
  Dtype dtype;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  size_t offset = 0;
  size_t bytes = 0;
};

// One buffer slot: every input, then every output.
struct SetLayout {
  std::vector<Placement> inputs, outputs;
};

// f64 layouts widen floating tensors so the reference can run in double.
Dtype Widen(Dtype t, bool f64);

// Places one slot of `cs` from `offset` (appending to `out`) and returns
// where the next may start; `guard` bytes follow every tensor.
size_t PlaceSet(const Task& task, const CaseShapes& cs, bool f64, size_t offset, SetLayout* out,
                size_t guard = 0);
// The candidate's `slots` slots with canaries around them (into `sets`,
// which holds `slots` layouts, when given); returns the end of the last one.
size_t PlaceCandidateSets(const Task& task, const CaseShapes& cs, int slots,
                          std::vector<SetLayout>* sets);
// The reference's `slots` slots and its float64 slot after them (into `sets`
// and `f64` when given); returns the end of the float64 slot.
size_t PlaceReferenceSets(const Task& task, const CaseShapes& cs, int slots,
                          std::vector<SetLayout>* sets, SetLayout* f64);

// A slot's tensors as the sandbox is told them in a bind.
std::vector<wire::TensorSlot> Slots(const std::vector<Placement>& ps);

// Every tensor of the candidate's slots, named ("output 'y' of buffer set
// 0"); the offsets of slot `set`'s own go to `offsets_of_set` when given.
std::vector<ArenaSpan> CandidateBuffers(const std::vector<SetLayout>& sets, int set,
                                        std::vector<size_t>* offsets_of_set);
// The candidate's arena outside slot `set`'s own tensors, named: what a call
// on that slot must leave alone (StrayWriteWatch).
std::vector<ArenaSpan> CandidateSpansToKeep(const std::vector<SetLayout>& sets, int set,
                                            size_t arena_size);

// The bytes of a slot's tensors plus a workspace: what a line flush covers.
double FlushedBytes(const SetLayout& set, uint64_t workspace);

// Tensors in the worker's TrustedStore, one per input or output of a slot.
using Ids = std::vector<TrustedStore::Id>;

void LoadInputs(TrustedStore& store, Arena& arena, const SetLayout& set, const Ids& inputs);
// Fills every output of the slot with `pattern` bytes.
void Poison(Arena& arena, const SetLayout& set, uint8_t pattern);
// Before a timed call: the slot's inputs restored, its outputs poisoned
// (0xFF, NaN in every float type), and the arena waited for; its Status.
Status PrepareTimedCall(TrustedStore& store, Arena& arena, const SetLayout& set, const Ids& inputs);
Ids CaptureOutputs(TrustedStore& store, Arena& arena, const SetLayout& set);
void Release(TrustedStore& store, const Ids& ids);

// Drops every tensor a check kept when the check ends, whatever its outcome.
struct ClearStoreOnExit {
  TrustedStore& store;
  ~ClearStoreOnExit() { store.Clear(); }
};

}  // namespace hone
