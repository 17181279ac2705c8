// Concurrent tool calls take turns per device: two evaluations timed on one
// GPU (or on the host's cores) at once would each measure the other, so a
// call waits for its device's turn, in the order calls arrived, and says
// so. Calls on different devices run at once.
//
// Thread-safe. A wait ends early when its call is cancelled.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "mcp/tool_process.h"

namespace hone::mcp {

class DeviceQueue {
 public:
  // Holding a Turn is having the device; destroying it passes the turn on.
  class Turn {
   public:
    Turn(DeviceQueue* queue, std::string device) : queue_(queue), device_(std::move(device)) {}
    Turn(Turn&& other) noexcept : queue_(other.queue_), device_(std::move(other.device_)) {
      other.queue_ = nullptr;
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    Turn& operator=(Turn&&) = delete;
    ~Turn() {
      if (queue_) queue_->Release(device_);
    }

   private:
    DeviceQueue* queue_;
    std::string device_;
  };

  // Waits for `device`'s turn; `waiting(calls_ahead)` is called when the
  // call must wait and whenever the queue ahead of it shrinks. nullopt when
  // `cancel` was set first.
  std::optional<Turn> Acquire(const std::string& device, const CancelFlag& cancel,
                              const std::function<void(int ahead)>& waiting);

 private:
  void Release(const std::string& device);
  struct Line {
    uint64_t next_ticket = 0;  // the next caller's
    uint64_t serving = 0;      // the ticket that has the device
  };
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Line> lines_;
  std::map<std::string, std::set<uint64_t>> given_up_;  // tickets of cancelled waits, by device
};

}  // namespace hone::mcp
