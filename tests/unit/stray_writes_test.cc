// The stray-write watch: any byte of the arena outside the call's own
// outputs that changes is named.
#include "process/stray_writes.h"

#include <gtest/gtest.h>

#include "process/shared_arena.h"

namespace hone {
namespace {

// Two sets of x (100 floats) and y (100 floats), 256-byte aligned as the
// evaluator lays them out, in a 4 KiB arena.
std::vector<ArenaSpan> Buffers() {
  return {{0, 400, "input 'x' of buffer set 0"},
          {512, 400, "output 'y' of buffer set 0"},
          {1024, 400, "input 'x' of buffer set 1"},
          {1536, 400, "output 'y' of buffer set 1"}};
}

TEST(StrayWritesTest, SpansCoverEverythingButTheExemptBuffers) {
  auto keep = SpansToKeep(Buffers(), {0, 512}, 4096);
  size_t covered = 0;
  for (const auto& s : keep) covered += s.bytes;
  EXPECT_EQ(covered, 4096u - 800u);
  ASSERT_FALSE(keep.empty());
  EXPECT_EQ(keep.front().name, "the bytes past the end of input 'x' of buffer set 0");
  EXPECT_EQ(keep.back().name, "the bytes past the end of output 'y' of buffer set 1");
}

TEST(StrayWritesTest, AWritePastTheOutputIsNamedAndOneInsideIsNot) {
  auto arena = SharedArena::Create(4096);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  StrayWriteWatch watch(**arena, SpansToKeep(Buffers(), {0, 512}, 4096));
  ASSERT_TRUE(watch.Before());
  float v = 1.5f;
  (*arena)->Write(512 + 396, &v, sizeof v);  // the output's last element: allowed
  (*arena)->Write(0, &v, sizeof v);          // its own input: the input check's business
  EXPECT_FALSE(watch.After().has_value());
  (*arena)->Write(512 + 400 + 64, &v, sizeof v);  // one float 64 bytes past the output
  auto hit = watch.After();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->name, "the bytes past the end of output 'y' of buffer set 0");
}

TEST(StrayWritesTest, AWriteIntoAnotherSetIsNamed) {
  auto arena = SharedArena::Create(4096);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  StrayWriteWatch watch(**arena, SpansToKeep(Buffers(), {0, 512}, 4096));
  ASSERT_TRUE(watch.Before());
  (*arena)->Fill(1536 + 8, 0x5A, 16);
  auto hit = watch.After();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->name, "output 'y' of buffer set 1");
}

TEST(StrayWritesTest, GuardsAreTheGapsAroundEveryBuffer) {
  // Buffers placed as the candidate's arena places them: a guard first.
  std::vector<ArenaSpan> buffers = {{256, 400, "input 'x' of buffer set 0"},
                                    {1024, 400, "output 'y' of buffer set 0"}};
  auto guards = GuardSpans(buffers, 4096);
  ASSERT_EQ(guards.size(), 3u);
  EXPECT_EQ(guards[0].name, "the bytes before input 'x' of buffer set 0");
  EXPECT_EQ(guards[0].offset, 0u);
  EXPECT_EQ(guards[0].bytes, 256u);
  EXPECT_EQ(guards[1].offset, 656u);
  EXPECT_EQ(guards[2].name, "the bytes past the end of output 'y' of buffer set 0");
  EXPECT_EQ(guards[2].offset + guards[2].bytes, 4096u);
}

TEST(StrayWritesTest, AGuardWatchSeesACanaryChangedAndNotABufferWritten) {
  auto arena = SharedArena::Create(4096);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  std::vector<ArenaSpan> buffers = {{256, 400, "input 'x' of buffer set 0"},
                                    {1024, 400, "output 'y' of buffer set 0"}};
  // The canary is not zero: a write of zeros into fresh (zeroed) memory
  // would change nothing.
  for (const ArenaSpan& g : GuardSpans(buffers, 4096)) (*arena)->Fill(g.offset, 0x11, g.bytes);
  StrayWriteWatch watch(**arena, GuardSpans(buffers, 4096));
  ASSERT_TRUE(watch.Before());
  (*arena)->Fill(1024, 0x77, 400);  // every output byte, many times over: allowed
  (*arena)->Fill(256, 0x77, 400);
  EXPECT_FALSE(watch.After().has_value());
  EXPECT_EQ(watch.watched_bytes(), 4096u - 800u);
  (*arena)->Fill(4000, 0, 1);  // one zero byte far past the last buffer
  auto hit = watch.After();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->name, "the bytes past the end of output 'y' of buffer set 0");
  EXPECT_GE(watch.TakeSeconds(), 0.0);
  EXPECT_EQ(watch.TakeSeconds(), 0.0);
}

TEST(StrayWritesTest, AWriteBeforeTheFirstBufferIsNamed) {
  auto arena = SharedArena::Create(4096);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  std::vector<ArenaSpan> buffers = {{256, 400, "input 'x' of buffer set 0"}};
  StrayWriteWatch watch(**arena, GuardSpans(buffers, 4096));
  ASSERT_TRUE(watch.Before());
  (*arena)->Fill(255, 0x01, 1);
  auto hit = watch.After();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->name, "the bytes before input 'x' of buffer set 0");
}

}  // namespace
}  // namespace hone
