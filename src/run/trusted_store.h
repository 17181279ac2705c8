// The worker's private tensors: pristine inputs, expected outputs, float64
// references and earlier results of the candidate. They live where the
// sandbox cannot reach them (worker host memory on the CPU backend, device
// allocations that are never exported on the CUDA backend) and every check
// runs next to them, so on a GPU only summaries cross the bus.
//
// Tensors enter by Generate (values drawn where the store keeps them, the
// GPU for the CUDA store), Upload (from the host) or Capture (a copy out of
// an arena); Restore copies one back into an arena, converting floating types
// to float64 for the reference's precision run. Comparisons follow the
// contract of verify/compare.h exactly.
//
// Expected failures of the backend (a CUDA error) are kept: the first one
// is returned by status() and every later operation becomes a no-op that
// reports "no difference", so callers check status() before trusting a
// result. Not thread-safe; one worker thread drives it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/dtype.h"
#include "process/arena.h"
#include "task/sampler.h"
#include "task/task.h"
#include "verify/compare.h"

namespace hone {

class TrustedStore {
 public:
  using Id = size_t;
  virtual ~TrustedStore() = default;

  // n values of `spec` (task/sampler.h) drawn from (seed, rng_stream).
  virtual Id Generate(const SamplerSpec& spec, Dtype t, int64_t n, uint64_t seed,
                      uint64_t rng_stream) = 0;
  virtual Id Upload(const void* host, Dtype t, int64_t n) = 0;
  virtual Id Capture(Arena& arena, size_t offset, Dtype t, int64_t n) = 0;
  // Writes tensor `id` into `arena` at `offset` as dtype `as` (its own dtype,
  // or float64 for a floating tensor).
  virtual void Restore(Id id, Arena& arena, size_t offset, Dtype as) = 0;
  // A copy of `src` with every element multiplied by `factor` (a floating
  // tensor; other dtypes are copied unchanged).
  virtual Id Scaled(Id src, double factor) = 0;
  // A tensor another trusted process (the PyTorch oracle) writes into, so a
  // value set never crosses the host: on CUDA a device allocation of its own
  // exported through CUDA IPC, whose handle (128 hex digits) goes to `ipc`.
  // std::nullopt where the store cannot share (the CPU store): the caller
  // then moves the data in with Upload. A released shared tensor's memory
  // is kept, with its handle, for the next one of its size; a shared tensor
  // of another size frees what is kept first, as ReleaseCached does.
  virtual std::optional<Id> AllocateShared(Dtype t, int64_t n, std::string* ipc) {
    return std::nullopt;
  }
  virtual void Release(Id id) = 0;
  virtual void Clear() = 0;
  // Memory the store keeps for reuse but no tensor holds goes back to the
  // device, for another process about to allocate (the oracle making a value
  // set beside a full-size problem). Tensors stay valid; later allocations
  // are slower until the store has grown again. `keep_shared`: the kept
  // memory of released shared tensors stays, for the next value set of the
  // same sizes (the memory plan counts it as that set's own).
  virtual void ReleaseCached(bool keep_shared = false) {}

  virtual Mismatch Compare(Id actual, Id expected, const Tolerance& tol) = 0;
  // `ref` must be float64.
  virtual double RelativeL2(Id a, Id ref) = 0;
  // Bitwise differences between two tensors of the same dtype and size.
  virtual int64_t CountDifferent(Id a, Id b, int64_t* first) = 0;
  // The same between tensor `id` and the bytes at `offset` of `arena`,
  // without a copy of them (a full-size input is gigabytes).
  virtual int64_t CountDifferentInArena(Id id, Arena& arena, size_t offset, int64_t* first) = 0;
  // Compare (with `expected`, whose dtype and size the arena's elements
  // share) and RelativeL2 (elements of dtype `t`, as many as `ref` holds) of
  // the elements at `offset` of `arena`, read where they lie: a capture of a
  // full-size output is an allocation of gigabytes beside a full device. The
  // defaults capture, check and release (the host store copies the arena
  // into worker memory either way).
  virtual Mismatch CompareInArena(Arena& arena, size_t offset, Id expected, const Tolerance& tol);
  virtual double RelativeL2InArena(Arena& arena, size_t offset, Dtype t, Id ref);

  virtual Status status() = 0;

  // What a stored tensor holds.
  virtual Dtype DtypeOf(Id id) const = 0;
  virtual int64_t NumelOf(Id id) const = 0;
};

// The host store: plain worker memory, checked with verify/compare.h. For
// arenas a sandbox maps from host memory (process/shared_arena.h); each backend
// makes the store for its own arenas (run/backend.h).
std::unique_ptr<TrustedStore> CreateHostTrustedStore();

}  // namespace hone
