// Stray writes: a call may change its own output buffers and nothing else in
// the shared arena. The watch fingerprints every other byte (the other
// buffer sets, the padding after each buffer, the arena's unused end) before
// a call and compares after it, naming the first part that changed, so a
// candidate that computes the right output and then writes past it (into
// padding, or into another set's buffers, which are reloaded before their
// own use and would hide it) is caught. The called set's inputs are left to
// the input-mutation check, which says more.
//
// Only where the arena can fingerprint (Arena::Fingerprint: the CPU's shared
// pages); elsewhere Armed() is false. Not thread-safe; borrows the arena.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/arena.h"

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

class StrayWriteWatch {
 public:
  StrayWriteWatch(Arena& arena, std::vector<ArenaSpan> keep)
      : arena_(arena), keep_(std::move(keep)) {}
  // Fingerprints every span; false (and the watch is off) where the arena
  // cannot.
  bool Before();
  // The first span that changed since Before(), or nothing.
  std::optional<ArenaSpan> After();

 private:
  Arena& arena_;
  std::vector<ArenaSpan> keep_;
  std::vector<uint64_t> before_;
  bool armed_ = false;
};

}  // namespace hone
