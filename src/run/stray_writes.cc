#include "run/stray_writes.h"

#include <algorithm>

namespace hone {

std::vector<ArenaSpan> SpansToKeep(std::vector<ArenaSpan> buffers,
                                   const std::vector<size_t>& exempt_offsets, size_t arena_size) {
  std::sort(buffers.begin(), buffers.end(),
            [](const ArenaSpan& a, const ArenaSpan& b) { return a.offset < b.offset; });
  std::vector<ArenaSpan> keep;
  size_t cursor = 0;
  std::string after = "the arena's start";
  for (const ArenaSpan& b : buffers) {
    if (b.offset > cursor)
      keep.push_back({cursor, b.offset - cursor, "the bytes past the end of " + after});
    bool exempt =
        std::find(exempt_offsets.begin(), exempt_offsets.end(), b.offset) != exempt_offsets.end();
    if (!exempt && b.bytes > 0) keep.push_back(b);
    cursor = std::max(cursor, b.offset + b.bytes);
    after = b.name;
  }
  if (arena_size > cursor)
    keep.push_back({cursor, arena_size - cursor, "the bytes past the end of " + after});
  return keep;
}

bool StrayWriteWatch::Before() {
  before_.assign(keep_.size(), 0);
  armed_ = true;
  for (size_t i = 0; i < keep_.size() && armed_; ++i)
    armed_ = arena_.Fingerprint(keep_[i].offset, keep_[i].bytes, &before_[i]);
  return armed_;
}

std::optional<ArenaSpan> StrayWriteWatch::After() {
  if (!armed_) return std::nullopt;
  for (size_t i = 0; i < keep_.size(); ++i) {
    uint64_t now = 0;
    if (arena_.Fingerprint(keep_[i].offset, keep_[i].bytes, &now) && now != before_[i])
      return keep_[i];
  }
  return std::nullopt;
}

}  // namespace hone
