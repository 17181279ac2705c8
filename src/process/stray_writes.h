// Stray writes: a call may change its own output buffers and nothing else in
// the shared arena. The watch fingerprints every other byte (the other
// buffer sets, the padding after each buffer, the arena's unused end) before
// a call and compares after it, naming the first part that changed, so a
// candidate that computes the right output and then writes past it (into
// padding, or into another set's buffers, which are reloaded before their
// own use and would hide it) is caught. The called set's inputs are left to
// the input-mutation check, which says more.
//
// The same watch over the guards alone (GuardSpans: the canary bytes between
// and after buffers) is cheap enough to span a whole timing loop.
//
// Fingerprints are keyed by a value drawn per Before() in the worker, so a
// candidate cannot make its writes cancel out. Where the arena cannot
// fingerprint, Before() is false and the watch is off. Not thread-safe;
// borrows the arena.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "process/arena.h"

namespace hone {

// A named range of the arena.
struct ArenaSpan {
  size_t offset = 0, bytes = 0;
  std::string name;  // "output 'y' of buffer set 0"
};

// Every part of [0, arena_size) outside `exempt`: the buffers not exempt,
// the gap after every buffer ("past the end of NAME"), and any bytes before
// the first one. `buffers` holds every buffer in the arena, `exempt` the
// ones the call may write (names match by offset).
std::vector<ArenaSpan> SpansToKeep(std::vector<ArenaSpan> buffers,
                                   const std::vector<size_t>& exempt_offsets, size_t arena_size);

// Only the gaps: every part of [0, arena_size) that is in no buffer.
std::vector<ArenaSpan> GuardSpans(std::vector<ArenaSpan> buffers, size_t arena_size);

class StrayWriteWatch {
 public:
  StrayWriteWatch(Arena& arena, std::vector<ArenaSpan> keep);
  // Fingerprints every span; false (and the watch is off) where the arena
  // cannot.
  bool Before();
  // The first span that changed since Before() or the last After() that
  // found none, or nothing (and then the fingerprints just taken are the
  // next After()'s "before": a run of calls costs one fingerprint each).
  std::optional<ArenaSpan> After();
  // Bytes each Before() or After() reads; the time they took since the
  // last TakeSeconds().
  size_t watched_bytes() const;
  double TakeSeconds() { return std::exchange(seconds_, 0.0); }

 private:
  bool Take(std::vector<uint64_t>* out);
  Arena& arena_;
  std::vector<ArenaSpan> keep_;
  std::vector<ArenaRange> ranges_;
  std::vector<uint64_t> before_;
  uint64_t key_ = 0;
  bool armed_ = false;
  double seconds_ = 0;
};

}  // namespace hone
