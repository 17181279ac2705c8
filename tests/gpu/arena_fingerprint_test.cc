// The CUDA arena's fingerprints (cuda/device_fingerprint.h) see every byte a
// stray write could change: a word in the middle, the unaligned bytes at a
// range's ends, a range of one byte, and one too large for a single block
// (label "gpu"; skipped without a GPU).
#include <gtest/gtest.h>

#include <vector>

#include "cuda/cuda_arena.h"
#include "cuda/gpu.h"
#include "gpu/require_gpu.h"
#include "process/arena.h"
#include "process/stray_writes.h"

namespace hone {
namespace {

constexpr size_t kBytes = 96 << 20;

std::vector<ArenaRange> Ranges() {
  return {{3, 5},                         // inside one word, unaligned both ends
          {13, 1000},                     // unaligned head and tail around whole words
          {4096, 1},                      // one byte
          {8192, kBytes - 8192 - 4097}};  // 96 MiB less a little: many blocks
}

TEST(ArenaFingerprintTest, EveryChangedByteChangesItsRangeOnly) {
  REQUIRE_GPU();
  auto arena = CudaArena::Create(kBytes, 0);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  Arena& a = **arena;
  a.Fill(0, 0x33, kBytes);
  std::vector<uint64_t> before, again;
  ASSERT_TRUE(a.Fingerprint(Ranges(), 42, &before));
  ASSERT_TRUE(a.Fingerprint(Ranges(), 42, &again));
  EXPECT_EQ(before, again);
  std::vector<uint64_t> other_key;
  ASSERT_TRUE(a.Fingerprint(Ranges(), 43, &other_key));
  EXPECT_NE(before, other_key);
  // Each probe changes one byte, then puts it back.
  struct Probe {
    size_t offset;
    size_t range;
  };
  for (Probe p : {Probe{3, 0}, Probe{7, 0}, Probe{13, 1}, Probe{16, 1}, Probe{1012, 1},
                  Probe{4096, 2}, Probe{8192, 3}, Probe{50 << 20, 3}, Probe{kBytes - 4098, 3}}) {
    uint8_t v = 0x34;
    a.Write(p.offset, &v, 1);
    std::vector<uint64_t> now;
    ASSERT_TRUE(a.Fingerprint(Ranges(), 42, &now));
    for (size_t r = 0; r < now.size(); ++r)
      EXPECT_EQ(now[r] != before[r], r == p.range) << "byte " << p.offset << ", range " << r;
    v = 0x33;
    a.Write(p.offset, &v, 1);
  }
  // Bytes outside every range are nobody's.
  uint8_t v = 0;
  a.Write(kBytes - 1, &v, 1);
  std::vector<uint64_t> now;
  ASSERT_TRUE(a.Fingerprint(Ranges(), 42, &now));
  EXPECT_EQ(now, before);
  EXPECT_TRUE(a.Sync().ok());
}

TEST(ArenaFingerprintTest, TheWatchNamesAWriteFarPastTheLastBuffer) {
  REQUIRE_GPU();
  auto arena = CudaArena::Create(kBytes, 0);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  std::vector<ArenaSpan> buffers = {{kGuardBytes, 1 << 20, "output 'y' of buffer set 0"}};
  StrayWriteWatch watch(**arena, GuardSpans(buffers, kBytes));
  ASSERT_TRUE(watch.Before());
  (*arena)->Fill(kGuardBytes, 0x01, 1 << 20);
  EXPECT_FALSE(watch.After().has_value());
  (*arena)->Fill(kGuardBytes + (1 << 20) + (4 << 20), 0x5A, 64 << 10);
  auto hit = watch.After();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->name, "the bytes past the end of output 'y' of buffer set 0");
}

}  // namespace
}  // namespace hone
