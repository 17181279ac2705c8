// The lanes of a bench (bench/lanes.h) over scripted work: every item done
// exactly once across the lanes, in list order, never two at once on one
// lane; a lane that fails puts its item back for another lane and is
// retired; an item is lost only to no one: with every lane retired it is
// reported undone.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "bench/lanes.h"

namespace hone {
namespace {

using namespace std::chrono_literals;

// Records who did what, and checks one item at a time per lane.
struct Recorder {
  std::mutex mu;
  std::map<size_t, std::vector<size_t>> by_item;  // item -> lanes that finished it
  std::vector<size_t> order;                      // items in the order they were taken
  std::vector<std::atomic<int>> in_lane;
  std::atomic<int> overlaps{0}, max_parallel{0}, running{0};
  std::set<std::thread::id> threads;

  explicit Recorder(size_t lanes) : in_lane(lanes) {}

  void Enter(size_t lane, size_t item) {
    if (in_lane[lane]++ != 0) ++overlaps;
    int now = ++running;
    int seen = max_parallel.load();
    while (now > seen && !max_parallel.compare_exchange_weak(seen, now)) {
    }
    std::lock_guard lock(mu);
    order.push_back(item);
    threads.insert(std::this_thread::get_id());
  }
  void Leave(size_t lane, size_t item, bool done) {
    --running;
    --in_lane[lane];
    if (!done) return;
    std::lock_guard lock(mu);
    by_item[item].push_back(lane);
  }
};

TEST(BenchLanes, EveryItemOnceOverFourLanesOneAtATimePerLane) {
  constexpr size_t kLanes = 4, kItems = 40;
  Recorder r(kLanes);
  LanesReport report = RunLanes(kLanes, kItems, [&](size_t lane, size_t item) {
    r.Enter(lane, item);
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + (item * 7) % 5));
    r.Leave(lane, item, true);
    return Status::Ok();
  });
  ASSERT_EQ(r.by_item.size(), kItems);
  for (const auto& [item, lanes] : r.by_item) EXPECT_EQ(lanes.size(), 1u) << "item " << item;
  EXPECT_EQ(r.overlaps, 0) << "two items at once on one lane";
  EXPECT_GT(r.max_parallel, 1) << "the lanes never worked at the same time";
  EXPECT_LE(r.max_parallel, static_cast<int>(kLanes));
  EXPECT_GE(r.threads.size(), 2u);
  // Handed out from the front of one list: an item is recorded a few places
  // from its own at most (lanes that took neighbours may record them in
  // either order, and on a loaded 2-core machine a lane's thread can sleep
  // between taking an item and recording it while the others take more).
  for (size_t i = 0; i < kItems; ++i)
    EXPECT_LT(r.order[i] > i ? r.order[i] - i : i - r.order[i], 3 * kLanes) << i;
  EXPECT_TRUE(report.failures.empty());
  EXPECT_TRUE(report.undone.empty());
  size_t total = 0;
  for (size_t n : report.done) total += n;
  EXPECT_EQ(total, kItems);
}

TEST(BenchLanes, OneLaneRunsOnTheCallersThreadInOrder) {
  std::vector<size_t> seen;
  auto caller = std::this_thread::get_id();
  bool elsewhere = false;
  LanesReport report = RunLanes(1, 5, [&](size_t lane, size_t item) {
    EXPECT_EQ(lane, 0u);
    elsewhere = elsewhere || std::this_thread::get_id() != caller;
    seen.push_back(item);
    return Status::Ok();
  });
  EXPECT_FALSE(elsewhere);
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(report.done, std::vector<size_t>{5});
}

TEST(BenchLanes, NoItemsIsNoWork) {
  int calls = 0;
  LanesReport report = RunLanes(3, 0, [&](size_t, size_t) {
    ++calls;
    return Status::Ok();
  });
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(report.undone.empty());
}

// Lane 1 fails on the first item it takes: that item is done by another
// lane, lane 1 takes nothing more, and every item is still done once.
TEST(BenchLanes, AFailingLanesItemGoesToAnotherLane) {
  constexpr size_t kLanes = 3, kItems = 12;
  Recorder r(kLanes);
  std::atomic<int> lane1_calls{0};
  std::optional<size_t> failed_item;
  std::vector<std::pair<size_t, size_t>> retired;  // (lane, lanes left)
  LanesReport report = RunLanes(
      kLanes, kItems,
      [&](size_t lane, size_t item) {
        r.Enter(lane, item);
        std::this_thread::sleep_for(2ms);
        if (lane == 1) {
          ++lane1_calls;
          r.Leave(lane, item, false);
          return Status::Unavailable("GPU 1 fell off the bus");
        }
        r.Leave(lane, item, true);
        return Status::Ok();
      },
      [&](const LaneFailure& f, size_t left) {
        failed_item = f.item;
        retired.push_back({f.lane, left});
      });
  EXPECT_EQ(lane1_calls, 1);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].lane, 1u);
  EXPECT_EQ(report.failures[0].status.message(), "GPU 1 fell off the bus");
  ASSERT_TRUE(failed_item);
  EXPECT_EQ(retired, (std::vector<std::pair<size_t, size_t>>{{1, 2}}));
  ASSERT_EQ(r.by_item.size(), kItems);
  for (const auto& [item, lanes] : r.by_item) {
    ASSERT_EQ(lanes.size(), 1u) << "item " << item;
    EXPECT_NE(lanes[0], 1u);
  }
  EXPECT_TRUE(report.undone.empty());
  EXPECT_EQ(report.done[1], 0u);
}

// The last item comes back after every other lane found the list empty:
// the waiting lanes must still be there to take it.
TEST(BenchLanes, AnItemPutBackLateIsStillTaken) {
  std::atomic<int> tries{0};
  std::mutex mu;
  std::map<size_t, int> done;
  LanesReport report = RunLanes(2, 2, [&](size_t lane, size_t item) {
    if (item == 1 && tries++ == 0) {
      std::this_thread::sleep_for(50ms);  // the other lane has finished item 0 by now
      return Status::Io("disk full");
    }
    std::lock_guard lock(mu);
    ++done[item];
    (void)lane;
    return Status::Ok();
  });
  EXPECT_EQ(done, (std::map<size_t, int>{{0, 1}, {1, 1}}));
  EXPECT_EQ(report.failures.size(), 1u);
  EXPECT_TRUE(report.undone.empty());
}

// With every lane retired the items left are reported, in order, not lost.
TEST(BenchLanes, EveryLaneRetiredLeavesTheRestUndone) {
  std::vector<size_t> left_counts;
  std::mutex mu;
  LanesReport report = RunLanes(
      2, 6,
      [&](size_t, size_t item) {
        if (item < 2) return Status::Ok();
        std::this_thread::sleep_for(5ms);
        return Status::Internal("broken environment");
      },
      [&](const LaneFailure&, size_t left) {
        std::lock_guard lock(mu);
        left_counts.push_back(left);
      });
  EXPECT_EQ(report.failures.size(), 2u);
  std::sort(left_counts.begin(), left_counts.end());
  EXPECT_EQ(left_counts, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(report.undone, (std::vector<size_t>{2, 3, 4, 5}));
  EXPECT_EQ(report.done[0] + report.done[1], 2u);
}

// One lane that fails is the old single-evaluator bench: it stops at once,
// and everything from the failing item on is undone.
TEST(BenchLanes, OneLaneFailingStopsAtItsItem) {
  std::vector<size_t> seen;
  LanesReport report = RunLanes(1, 5, [&](size_t, size_t item) {
    seen.push_back(item);
    return item == 2 ? Status::Io("store: disk I/O error") : Status::Ok();
  });
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2}));
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].item, 2u);
  EXPECT_EQ(report.undone, (std::vector<size_t>{2, 3, 4}));
}

}  // namespace
}  // namespace hone
