#include "core/malloc_policy.h"

#include <malloc.h>

namespace hone {

namespace {
// Both must be set: fixing one turns off glibc's adjustment of the other,
// which is worse than either default (measured: 3.1 s against 2.1 s).
constexpr int kMmapThreshold = 256 << 20;
constexpr int kKeptBytes = 512 << 20;
}  // namespace

void KeepFreedMemoryForReuse() {
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kKeptBytes);
}

}  // namespace hone
