#include "process/stray_writes.h"

#include <algorithm>
#include <chrono>
#include <random>

namespace hone {

std::vector<ArenaSpan> SpansToKeep(std::vector<ArenaSpan> buffers,
                                   const std::vector<size_t>& exempt_offsets, size_t arena_size) {
  std::sort(buffers.begin(), buffers.end(),
            [](const ArenaSpan& a, const ArenaSpan& b) { return a.offset < b.offset; });
  std::vector<ArenaSpan> keep;
  size_t cursor = 0;
  std::string after;
  for (const ArenaSpan& b : buffers) {
    if (b.offset > cursor)
      keep.push_back(
          {cursor, b.offset - cursor,
           after.empty() ? "the bytes before " + b.name : "the bytes past the end of " + after});
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

std::vector<ArenaSpan> GuardSpans(std::vector<ArenaSpan> buffers, size_t arena_size) {
  std::vector<size_t> all;
  for (const ArenaSpan& b : buffers) all.push_back(b.offset);
  return SpansToKeep(std::move(buffers), all, arena_size);
}

StrayWriteWatch::StrayWriteWatch(Arena& arena, std::vector<ArenaSpan> keep)
    : arena_(arena), keep_(std::move(keep)) {
  for (const ArenaSpan& s : keep_) ranges_.push_back({s.offset, s.bytes});
}

bool StrayWriteWatch::Take(std::vector<uint64_t>* out) {
  auto start = std::chrono::steady_clock::now();
  bool ok = arena_.Fingerprint(ranges_, key_, out) && out->size() == keep_.size();
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ok;
}

bool StrayWriteWatch::Before() {
  std::random_device rd;
  key_ = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  armed_ = Take(&before_);
  return armed_;
}

std::optional<ArenaSpan> StrayWriteWatch::After() {
  if (!armed_) return std::nullopt;
  std::vector<uint64_t> now;
  if (!Take(&now)) return std::nullopt;
  for (size_t i = 0; i < keep_.size(); ++i)
    if (now[i] != before_[i]) return keep_[i];
  before_ = std::move(now);
  return std::nullopt;
}

size_t StrayWriteWatch::watched_bytes() const {
  size_t n = 0;
  for (const ArenaSpan& s : keep_) n += s.bytes;
  return n;
}

}  // namespace hone
