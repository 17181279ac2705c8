// What the test device was asked to do, counted where its arena and its
// trusted store are made and used, so that a test can tell that the
// evaluation went through them and not through the CPU's. Shared by the
// backend, its arenas and its stores (std::shared_ptr); the counters are
// atomic, so any thread may bump or read them.
#pragma once

#include <atomic>

namespace hone::testing {

struct TestDevCounts {
  std::atomic<int> arenas{0};         // TestDevArena::Create
  std::atomic<int> syncs{0};          // TestDevArena::Sync that completed staged writes
  std::atomic<int> staged_writes{0};  // writes and fills staged by an arena
  std::atomic<int> stores{0};         // TestDevStore made
  std::atomic<int> compares{0};       // TestDevStore::Compare and CompareInArena
  std::atomic<int> profiles{0};       // candidates its profiler measured
};

}  // namespace hone::testing
