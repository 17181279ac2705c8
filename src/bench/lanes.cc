#include "bench/lanes.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace hone {
namespace {

// The shared list and who is working on it. A lane that finds the list
// empty waits while another lane is busy: that lane may fail and put its
// item back.
class LaneList {
 public:
  LaneList(size_t lanes, size_t items) {
    for (size_t i = 0; i < items; ++i) todo_.push_back(i);
    report_.done.assign(lanes, 0);
  }

  // The next item, or none when the list is empty and no lane is busy.
  std::optional<size_t> Take() {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return !todo_.empty() || busy_ == 0; });
    if (todo_.empty()) return std::nullopt;
    size_t item = todo_.front();
    todo_.pop_front();
    ++busy_;
    return item;
  }

  void Done(size_t lane) {
    std::lock_guard lock(mu_);
    ++report_.done[lane];
    --busy_;
    changed_.notify_all();
  }

  // Puts the item back in its place (the list stays in order, so it goes
  // before every item not yet handed out) and retires the lane; returns the
  // lanes left.
  size_t Retire(LaneFailure failure, size_t lanes) {
    std::lock_guard lock(mu_);
    todo_.insert(std::lower_bound(todo_.begin(), todo_.end(), failure.item), failure.item);
    report_.failures.push_back(std::move(failure));
    --busy_;
    changed_.notify_all();
    return lanes - report_.failures.size();
  }

  LanesReport Finish() {
    std::lock_guard lock(mu_);
    report_.undone.assign(todo_.begin(), todo_.end());
    return std::move(report_);
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<size_t> todo_;
  size_t busy_ = 0;
  LanesReport report_;
};

void RunLane(size_t lane, size_t lanes, LaneList& list, const LaneWork& work,
             const LaneRetired& on_retire) {
  while (std::optional<size_t> item = list.Take()) {
    Status st = work(lane, *item);
    if (st.ok()) {
      list.Done(lane);
      continue;
    }
    LaneFailure failure{lane, *item, st};
    size_t left = list.Retire(failure, lanes);
    if (on_retire) on_retire(failure, left);
    return;
  }
}

}  // namespace

LanesReport RunLanes(size_t lanes, size_t items, const LaneWork& work,
                     const LaneRetired& on_retire) {
  if (lanes == 0) std::abort();  // a programmer error: nothing could do the items
  LaneList list(lanes, items);
  std::vector<std::thread> threads;
  for (size_t lane = 1; lane < lanes; ++lane)
    threads.emplace_back(RunLane, lane, lanes, std::ref(list), std::cref(work),
                         std::cref(on_retire));
  RunLane(0, lanes, list, work, on_retire);
  for (auto& t : threads) t.join();
  return list.Finish();
}

}  // namespace hone
